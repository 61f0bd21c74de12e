# Source: https://github.com/jacobgil/pytorch-grad-cam/issues/557
# Shape: the differentiable saliency comes from torch.autograd.grad(score, images, create_graph=True), which returns the gradient instead of storing it on images.grad, so no leaf/grad reference cycle forms and each batch is freed.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Cfg:
    num_classes = 10
    img_size = 16
    batch_size = 8
    lr = 1e-3
    rrr_lambda = 10.0
    grad_clip = 5.0


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.Tanh(),
            nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.Tanh(),
        )
        self.classifier = nn.Linear(32, num_classes)

    def forward(self, x):
        f = self.features(x)
        return self.classifier(f.mean(dim=(2, 3)))


def make_sample(seed, cfg):
    """Images whose label is encoded in the centre; the border (annotation mask = 1) is a spurious cue."""
    g = torch.Generator().manual_seed(seed)
    labels = torch.randint(0, cfg.num_classes, (cfg.batch_size,), generator=g)
    images = torch.randn(cfg.batch_size, 3, cfg.img_size, cfg.img_size, generator=g) * 0.3
    images[:, :, 6:10, 6:10] += (labels.float() / cfg.num_classes)[:, None, None, None]
    images[:, 0, :2, :] += labels.float()[:, None, None] * 0.1
    irrelevant = torch.ones(cfg.batch_size, 1, cfg.img_size, cfg.img_size)
    irrelevant[:, :, 4:12, 4:12] = 0.0
    return images, labels, irrelevant


class RRRTrainer:
    """'Right for the right reasons': cross-entropy plus a penalty on input-gradient saliency outside the mask."""

    def __init__(self, model, cfg):
        self.model = model
        self.cfg = cfg
        self.optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)
        self.log = {'ce': [], 'rrr': []}

    def explanation_penalty(self, images, logits, labels, irrelevant):
        log_probs = F.log_softmax(logits, dim=1)
        score = log_probs.gather(1, labels[:, None]).sum()
        saliency = torch.autograd.grad(score, images, create_graph=True)[0]
        return (saliency * irrelevant).pow(2).sum() / images.size(0)

    def step(self, seed):
        images, labels, irrelevant = make_sample(seed, self.cfg)
        images.requires_grad_(True)
        self.model.train()
        logits = self.model(images)
        ce = F.cross_entropy(logits, labels)
        rrr = self.explanation_penalty(images, logits, labels, irrelevant)
        loss = ce + self.cfg.rrr_lambda * rrr
        self.optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.cfg.grad_clip)
        self.optimizer.step()
        self.log['ce'].append(ce.item())
        self.log['rrr'].append(rrr.item())
        return loss.item()


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    cfg = Cfg()
    trainer = RRRTrainer(SmallCNN(cfg.num_classes), cfg)
    for seed in batches:
        trainer.step(seed)
    return trainer.log
