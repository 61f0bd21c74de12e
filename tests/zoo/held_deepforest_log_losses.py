# Source: https://github.com/weecology/DeepForest/pull/1254
# Shape: training_step logs each entry of the RetinaNet loss dict through self.log(..., on_epoch=True); the minimal Lightning-style base class keeps every logged value for the epoch-end mean, so the attached loss tensors (and their graphs) pile up until the epoch ends.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


def make_batches(n, batch_size=2, img=32, n_boxes=4, num_classes=2, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for i in range(n):
        images = torch.rand(batch_size, 3, img, img, generator=g)
        targets = []
        for _ in range(batch_size):
            xy = torch.rand(n_boxes, 2, generator=g) * (img - 8)
            boxes = torch.cat([xy, xy + 4 + torch.rand(n_boxes, 2, generator=g) * 4], 1)
            targets.append({"boxes": boxes, "labels": torch.randint(0, num_classes, (n_boxes,), generator=g)})
        out.append((["tile_{}.png".format(i)] * batch_size, images, targets))
    return out


class EpochLogger:
    """Stores what LightningModule.log() receives until the epoch is reduced."""

    def __init__(self):
        self.step_values = defaultdict(list)
        self.epoch_metrics = []

    def log(self, name, value):
        self.step_values[name].append(value)

    def reduce_epoch(self):
        metrics = {k: float(torch.stack([torch.as_tensor(v) for v in vals]).mean())
                   for k, vals in self.step_values.items()}
        self.epoch_metrics.append(metrics)
        return metrics


class LiteModule(nn.Module):
    """Just enough of pl.LightningModule for this script."""

    def __init__(self):
        super().__init__()
        self.logger = EpochLogger()
        self.current_epoch = 0

    def log(self, name, value, on_step=False, on_epoch=True, prog_bar=False):
        if on_epoch:
            self.logger.log(name, value)

    def on_train_epoch_end(self):
        self.logger.step_values.clear()


class TinyRetinaNet(nn.Module):
    def __init__(self, num_classes=2, n_anchors=9):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(),
                                      nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.cls_head = nn.Conv2d(32, n_anchors * num_classes, 3, 1, 1)
        self.reg_head = nn.Conv2d(32, n_anchors * 4, 3, 1, 1)
        self.num_classes = num_classes

    def forward(self, images, targets=None):
        feats = self.backbone(images)
        b = images.shape[0]
        cls = self.cls_head(feats).permute(0, 2, 3, 1).reshape(b, -1, self.num_classes)
        reg = self.reg_head(feats).permute(0, 2, 3, 1).reshape(b, -1, 4)
        if targets is None:
            return cls, reg
        # stand-in for anchor matching: assign every anchor to a gt box by index
        cls_t = torch.zeros_like(cls)
        reg_t = torch.zeros_like(reg)
        for i, t in enumerate(targets):
            idx = torch.arange(cls.shape[1]) % t["labels"].shape[0]
            cls_t[i, torch.arange(cls.shape[1]), t["labels"][idx]] = 1.0
            reg_t[i] = t["boxes"][idx] / images.shape[-1]
        classification = torchvision_sigmoid_focal_loss(cls, cls_t)
        bbox_regression = F.l1_loss(reg, reg_t)
        return {"classification": classification, "bbox_regression": bbox_regression}


def torchvision_sigmoid_focal_loss(inputs, targets, alpha=0.25, gamma=2.0):
    p = torch.sigmoid(inputs)
    ce = F.binary_cross_entropy_with_logits(inputs, targets, reduction="none")
    p_t = p * targets + (1 - p) * (1 - targets)
    loss = ce * ((1 - p_t) ** gamma)
    alpha_t = alpha * targets + (1 - alpha) * (1 - targets)
    return (alpha_t * loss).mean()


class deepforest(LiteModule):
    def __init__(self, config=None):
        super().__init__()
        self.config = config or {"train": {"lr": 1e-3}, "num_classes": 2}
        self.model = TinyRetinaNet(num_classes=self.config["num_classes"])

    def training_step(self, batch, batch_idx):
        path, images, targets = batch
        loss_dict = self.model.forward(images, targets)
        losses = sum([loss for loss in loss_dict.values()])
        for key, value in loss_dict.items():
            self.log("train_{}".format(key), value, on_epoch=True)  # TLK102
        return losses

    def configure_optimizers(self):
        return torch.optim.SGD(self.model.parameters(), lr=self.config["train"]["lr"], momentum=0.9)


class LiteTrainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs
        self.epoch_summaries = []

    def fit(self, module, train_dataloader, reduce_at_end=False):
        optimizer = module.configure_optimizers()
        module.train()
        for epoch in range(self.max_epochs):
            module.current_epoch = epoch
            for batch_idx, batch in enumerate(train_dataloader):
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
            if reduce_at_end:
                self.epoch_summaries.append(module.logger.reduce_epoch())
                module.on_train_epoch_end()
        return module


def run(steps):
    torch.manual_seed(0)
    m = deepforest()
    trainer = LiteTrainer(max_epochs=1)
    # run() stops inside the epoch: what is measured is what an epoch keeps while it runs
    trainer.fit(m, make_batches(steps), reduce_at_end=False)
    return {"module": m, "trainer": trainer}


if __name__ == "__main__":
    run(10)
