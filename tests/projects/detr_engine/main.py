# Layout modelled on facebookresearch/detr (main.py): builds the model and criterion through the
# models package and runs the epochs of engine.py.
import torch

from engine import evaluate, train_one_epoch, validation_loss
from models import build


def main(train_loader, val_loader, epochs=2):
    model, criterion = build(num_classes=3)
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=1e-4)
    history = []
    for epoch in range(epochs):
        stats = train_one_epoch(model, criterion, train_loader, optimizer, epoch)
        stats["val_loss"] = validation_loss(model, criterion, val_loader)
        stats["eval_loss"] = evaluate(model, criterion, val_loader)
        # stats["val_loss"] is validation_loss()'s attached total: each epoch's graph stays in history.
        history.append(stats)  # expect: TLK102
    return history
