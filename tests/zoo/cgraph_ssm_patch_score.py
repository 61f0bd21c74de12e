# Source: https://github.com/VictorinTurnel/Score-based-method/blob/faf362639ba1be322b570455fccc8bb790a9ef1b/losses/sliced_score_loss.py
# Shape: the sliced score matching loss exposes the create_graph=True Hessian-vector product grad_vs for diagnostics, and the trainer appends its norm as a live tensor every step, so each step's grad_vs (and its norm branch) stays reachable from the history.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class ScoreNet(nn.Module):
    """Noise-conditional score network over flattened 4x4 image patches."""

    def __init__(self, dim=16, hidden=64, n_sigmas=10):
        super().__init__()
        self.embed = nn.Embedding(n_sigmas, hidden)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, dim)

    def forward(self, x, sigma_idx):
        h = F.softplus(self.fc1(x) + self.embed(sigma_idx))
        h = F.softplus(self.fc2(h))
        return self.fc3(h)


def annealed_sliced_loss(model, x, sigma_idx, sigmas, M=1):
    x = x.detach().requires_grad_(True)
    B = x.shape[0]
    loss = 0
    stats = {}
    for _ in range(M):
        v = torch.randn_like(x)
        v = v / torch.linalg.norm(v.view(B, -1), dim=1, keepdim=True)
        s = model(x, sigma_idx) * sigmas[sigma_idx][:, None]
        vs = (v * s).view(B, -1).sum(dim=1)
        grad_vs = torch.autograd.grad(vs.sum(), x, create_graph=True)[0]
        vHv = (grad_vs * v).view(B, -1).sum(dim=1)
        square = 0.5 * (s.view(B, -1) ** 2).sum(dim=1)
        loss += (vHv + square).mean()
        stats["grad_vs_norm"] = grad_vs.norm(dim=1).mean()
        stats["score_norm"] = s.detach().norm(dim=1).mean()
    return 1 / M * loss, stats


class PatchDataset:
    def __init__(self, n_images=32, res=16, patch=4):
        g = torch.Generator().manual_seed(5)
        imgs = torch.rand(n_images, 1, res, res, generator=g)
        imgs = F.avg_pool2d(imgs, 3, stride=1, padding=1)
        patches = F.unfold(imgs, kernel_size=patch, stride=patch)
        self.patches = patches.transpose(1, 2).reshape(-1, patch * patch)
        self.patches = (self.patches - self.patches.mean()) / self.patches.std()


class SSMTrainer:
    def __init__(self, n_sigmas=10):
        self.sigmas = torch.exp(torch.linspace(torch.log(torch.tensor(1.0)), torch.log(torch.tensor(0.01)), n_sigmas))
        self.model = ScoreNet(n_sigmas=n_sigmas)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.data = PatchDataset()
        self.history = defaultdict(list)

    def step(self, idx):
        x = self.data.patches[idx]
        sigma_idx = torch.randint(0, len(self.sigmas), (x.shape[0],))
        x_noisy = x + torch.randn_like(x) * self.sigmas[sigma_idx][:, None]
        loss, stats = annealed_sliced_loss(self.model, x_noisy, sigma_idx, self.sigmas)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        self.history["loss"].append(loss.item())
        self.history["grad_vs_norm"].append(stats["grad_vs_norm"])  # TLK301
        self.history["score_norm"].append(stats["score_norm"].item())

    def train(self, batches):
        for idx in batches:
            self.step(idx)
        return self.history


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 512, (32,)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    trainer = SSMTrainer()
    return trainer.train(batches)
