# Source: https://github.com/fartashf/gvar_code/blob/7f750dc44e6593113e9d51da5a10f85273c3f646/test/high_order.py
# Shape: the segmentation trainer takes the input-gradient for its double-backprop penalty from images.grad after loss.backward(create_graph=True); images.grad's graph points back to images, a C++ reference cycle that keeps every step's graph alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinySegNet(nn.Module):
    def __init__(self, num_classes=4, width=16):
        super().__init__()
        self.enc1 = nn.Sequential(nn.Conv2d(3, width, 3, padding=1), nn.Tanh())
        self.enc2 = nn.Sequential(nn.Conv2d(width, width, 3, stride=2, padding=1), nn.Tanh())
        self.dec = nn.Sequential(nn.ConvTranspose2d(width, width, 2, stride=2), nn.Tanh())
        self.head = nn.Conv2d(2 * width, num_classes, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f2 = self.dec(self.enc2(f1))
        return self.head(torch.cat([f1, f2], dim=1))


class SegDataset:
    def __init__(self, size=64, res=16, num_classes=4):
        g = torch.Generator().manual_seed(21)
        self.images = torch.randn(size, 3, res, res, generator=g)
        self.masks = torch.randint(0, num_classes, (size, res, res), generator=g)


class InputGradSegTrainer:
    """Cross-entropy segmentation plus an input-gradient (double backprop) smoothness penalty."""

    def __init__(self, cfg):
        self.cfg = cfg
        self.model = TinySegNet(num_classes=cfg["num_classes"])
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=cfg["lr"], momentum=0.9)
        self.data = SegDataset(num_classes=cfg["num_classes"])
        self.log = {"ce": [], "input_grad": []}

    def input_gradient_penalty(self, images, masks):
        images = images.clone().requires_grad_(True)
        logits = self.model(images)
        loss = F.cross_entropy(logits, masks)
        loss.backward(create_graph=True)  # TLK302
        penalty = images.grad.pow(2).sum(dim=(1, 2, 3)).mean()
        return loss, penalty

    def train_step(self, images, masks):
        self.optimizer.zero_grad(set_to_none=True)
        loss, penalty = self.input_gradient_penalty(images, masks)
        self.optimizer.zero_grad(set_to_none=True)
        (loss + self.cfg["ig_weight"] * penalty).backward()
        self.optimizer.step()
        return loss.item(), penalty.item()

    def train(self, batches):
        self.model.train()
        for idx in batches:
            ce, ig = self.train_step(self.data.images[idx], self.data.masks[idx])
            self.log["ce"].append(ce)
            self.log["input_grad"].append(ig)
        return self.log


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 64, (4,)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    trainer = InputGradSegTrainer({"num_classes": 4, "lr": 0.01, "ig_weight": 0.1})
    return trainer.train(batches)
