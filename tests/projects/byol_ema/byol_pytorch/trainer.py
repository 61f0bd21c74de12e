# Layout modelled on lucidrains/byol-pytorch (byol_pytorch/trainer.py): the trainer owns the BYOL
# module and its optimizer, steps through a loader, and updates the target encoder after each
# optimizer step. Reduced: no accelerate, a plain loop.
import torch

from .byol_pytorch import BYOL


class BYOLTrainer:
    def __init__(self, net, learning_rate=3e-4, warmup_steps=2):
        self.byol = BYOL(net)
        self.optimizer = torch.optim.Adam(self.byol.parameters(), lr=learning_rate)
        self.warmup_steps = warmup_steps
        self.epoch_losses = []
        self.running_loss = 0.0

    def warmup(self, loader):
        for step, images in enumerate(loader):
            if step >= self.warmup_steps:
                break
            loss = self.byol(images)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            with torch.no_grad():
                self.byol.update_moving_average()  # clean: the caller runs it under no_grad
            self.running_loss += loss.item()  # clean: a number

    def train(self, loader):
        for images in loader:
            loss = self.byol(images)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            # Measured (same run): the autograd nodes reachable from the target encoder's
            # parameters grow 32 -> 320 -> 640 (+32 per step, 1,216 -> 2,496 B saved after 10, 20);
            # none when run under no_grad as warmup() does.
            self.byol.update_moving_average()  # expect: TLK103
            # Measured (same run): the list keeps 56 -> 470 -> 930 autograd nodes (+46 per step).
            self.epoch_losses.append(loss)  # expect: TLK102
