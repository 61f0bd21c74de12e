# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/4556
# Shape: a Lightning-style fit loop hands each training_step's output dict (with the graph-attached loss) to its callbacks' on_train_batch_end; an epoch-aggregation callback appends every value to a defaultdict(list) that is only reduced and cleared at epoch end, so each batch's loss graph survives for the whole epoch (the report's on_epoch=True aggregation kept the loss of every step on the GPU).
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 100


class Callback:
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        pass

    def on_train_epoch_end(self, trainer, module):
        pass


class EpochAggregator(Callback):
    def __init__(self):
        self.epoch_outputs = defaultdict(list)
        self.history = []

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        for key, value in outputs.items():
            self.epoch_outputs[key].append(value)  # TLK102

    def on_train_epoch_end(self, trainer, module):
        summary = {k: torch.stack(v).mean().item() for k, v in self.epoch_outputs.items()}
        self.history.append(summary)
        self.epoch_outputs.clear()


class LitClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 3))

    def training_step(self, batch, batch_idx):
        x, y = batch
        logits = self.net(x)
        loss = F.cross_entropy(logits, y)
        acc = (logits.argmax(-1) == y).float().mean()
        return {"loss": loss, "train_acc": acc}

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.1)


class MiniTrainer:
    def __init__(self, callbacks, max_epochs=1):
        self.callbacks = callbacks
        self.max_epochs = max_epochs

    def fit(self, module, make_loader):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(make_loader()):
                optimizer.zero_grad()
                outputs = module.training_step(batch, batch_idx)
                outputs["loss"].backward()
                optimizer.step()
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, module, outputs, batch, batch_idx)
            for cb in self.callbacks:
                cb.on_train_epoch_end(self, module)


def make_loader():
    for _ in range(STEPS):
        yield torch.randn(32, 20), torch.randint(0, 3, (32,))


aggregator = EpochAggregator()
trainer = MiniTrainer([aggregator], max_epochs=1)
trainer.fit(LitClassifier(), make_loader)
print(aggregator.history)
