# An evaluation helper that forgets no_grad, and one that is only called under it.
import torch


def validate(model, val_loader, criterion):
    model.eval()
    total = 0.0
    for src, tgt in val_loader:
        output = model(src, tgt[:, :-1])
        total += criterion(output.reshape(-1, output.size(-1)), tgt[:, 1:].reshape(-1))  # TLK101
    return total / len(val_loader)


def predict(model, loader):
    outputs = []
    for src, _ in loader:
        outputs.append(model(src))
    return torch.cat(outputs)


with torch.no_grad():
    predictions = predict(model, test_loader)
