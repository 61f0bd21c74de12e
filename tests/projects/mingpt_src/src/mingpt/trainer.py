# Modelled on karpathy/minGPT (mingpt/trainer.py), which imports its siblings; here through
# relative imports, and a whole submodule under an alias.
import torch

from . import model as model_module
from .utils import LossTracker
import mingpt.utils.tracking as tracking


class Trainer:
    def __init__(self, config, train_loader):
        self.model = model_module.GPT()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=config.lr)
        self.train_loader = train_loader
        self.tracker = LossTracker()
        self.batch_losses = tracking.LossTracker()
        self.smoothed = 0.0

    def run(self):
        self.model.train()
        for x, y in self.train_loader:
            logits, self.loss = self.model(x, y)
            self.model.zero_grad(set_to_none=True)
            self.loss.backward()
            self.optimizer.step()
            self.tracker.log(self.loss)  # expect: TLK102 (tracking.py)
            self.tracker.log_value(self.loss)  # clean: the tracker keeps .item()
            self.batch_losses.log(logits.mean())  # expect: TLK102 (tracking.py)
            self.smoothed = tracking.running_mean(self.smoothed, self.loss.item())  # clean: a float
