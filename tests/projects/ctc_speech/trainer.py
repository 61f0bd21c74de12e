"""The training loop: one optimizer step per batch, a running loss for the progress line, validation."""
import torch

from utils import check_loss, clip_and_step, reduce_loss_value
from validation import LossMeter


class Trainer:
    def __init__(self, model, lr=3e-4, max_norm=400.0):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.loss_meter = LossMeter()
        self.max_norm = max_norm

    def train_epoch(self, loader, epoch):
        self.model.train()
        self.loss_meter.reset()
        epoch_loss = 0.0
        for i, batch in enumerate(loader):
            loss = self.model.training_step(batch)  # known-miss: TLK103 (DeepSpeech.forward in model.py, run through training_step, stores each GRU's final state in the list self.hidden and, with streaming on, feeds it into the next batch's forward, so the second batch's backward reaches the first batch's freed graph)
            loss_value = reduce_loss_value(loss)
            valid, error = check_loss(loss, loss_value)
            if not valid:
                print(error)
                continue
            clip_and_step(loss, self.optimizer, self.model.parameters(), self.max_norm)
            self.loss_meter.update(loss, batch[0].size(0))  # expect: TLK101 (validation.py)
            epoch_loss += loss_value
            if i % 10 == 0:
                print(f"epoch {epoch} [{i}/{len(loader)}] loss {float(self.loss_meter.average):.3f}")
        return epoch_loss / max(len(loader), 1)

    def validate(self, loader):
        self.model.eval()
        self.model.cer.reset()
        for batch in loader:
            self.model.validation_step(batch)  # expect: TLK103 (with streaming on, validate carries the GRU states from batch to batch without no_grad: a chain across the validation batches, not marked by the author; measured 5,882 graph nodes behind model.hidden after 10 batches, 17,622 after 30) # known-miss: TLK102 (the loop runs without no_grad; DeepSpeech.validation_step in model.py passes its output to self.cer.update, and ErrorRate.update in validation.py appends probs.max(-1).values.exp().mean() to the list self.confidences, kept until the next reset)
        return self.model.cer.compute()
