# Source: https://github.com/facebookresearch/mmf/pull/560
# Shape: a Trainer's training_step method (called once per batch by fit) adds the reduced loss, still attached, into a stats dict kept on self for periodic reporting; the dict slot chains every step's graph until the report resets it.
# Verdict: leak
import torch
import torch.nn as nn


class MultimodalTrainer:
    def __init__(self, model: nn.Module, lr: float = 5e-5, report_every: int = 100):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.report_every = report_every
        self.stats = {"loss": 0.0, "batches": 0}

    def training_step(self, batch):
        report = self.model(batch)
        losses = report["losses"]
        total = sum(losses.values())
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        self.stats["loss"] += total  # TLK101
        self.stats["batches"] += 1

    def fit(self, loader, max_updates):
        for update, batch in enumerate(loader):
            if update >= max_updates:
                break
            self.training_step(batch)
            if (update + 1) % self.report_every == 0:
                print(update + 1, float(self.stats["loss"]) / self.stats["batches"])
                self.stats = {"loss": 0.0, "batches": 0}
