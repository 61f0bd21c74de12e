# Source: https://github.com/y0ast/deterministic-uncertainty-quantification/blob/3a659230a1583cc9977ff65743a1c209e7af4bed/train_duq_fm.py
# Shape: fixed twin: the logged gradient penalty is gradient_penalty.item(), so the history holds floats and the create_graph double-backward graph is freed after loss.backward().
# Verdict: clean
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class CNN_DUQ(nn.Module):
    def __init__(self, num_classes, embedding_size, learnable_length_scale, length_scale, gamma):
        super().__init__()
        self.gamma = gamma
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(8)
        self.conv2 = nn.Conv2d(8, 16, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(16)
        self.fc1 = nn.Linear(16 * 3 * 3, 32)

        self.W = nn.Parameter(torch.normal(torch.zeros(embedding_size, num_classes, 32), 0.05))
        self.register_buffer("N", torch.ones(num_classes) * 12)
        self.register_buffer("m", torch.normal(torch.zeros(embedding_size, num_classes), 1))
        self.m = self.m * self.N.unsqueeze(0)

        if learnable_length_scale:
            self.sigma = nn.Parameter(torch.zeros(num_classes) + length_scale)
        else:
            self.sigma = length_scale

    def compute_features(self, x):
        x = F.relu(F.max_pool2d(self.bn1(self.conv1(x)), 2))
        x = F.relu(F.max_pool2d(self.bn2(self.conv2(x)), 2))
        x = x.flatten(1)
        return F.relu(self.fc1(x))

    def update_embeddings(self, x, y):
        z = self.compute_features(x)
        z = torch.einsum("ij,mnj->imn", z, self.W)
        embedding_sum = torch.einsum("ijk,ik->jk", z, y)
        self.N = self.gamma * self.N + (1 - self.gamma) * y.sum(0)
        self.m = self.gamma * self.m + (1 - self.gamma) * embedding_sum

    def bilinear(self, z):
        embeddings = self.m / self.N.unsqueeze(0)
        diff = z - embeddings.unsqueeze(0)
        return (-(diff ** 2)).mean(1).div(2 * self.sigma ** 2).exp()

    def forward(self, x):
        z = self.compute_features(x)
        z = torch.einsum("ij,mnj->imn", z, self.W)
        return self.bilinear(z)


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, batch_size=32):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(batch_size, 1, 12, 12, generator=g)
    y = torch.randint(0, 10, (batch_size,), generator=g)
    return x, y


def calc_gradient_penalty(x, y_pred_sum):
    gradients = torch.autograd.grad(
        outputs=y_pred_sum,
        inputs=x,
        grad_outputs=torch.ones_like(y_pred_sum),
        create_graph=True,
        retain_graph=True,
    )[0]

    gradients = gradients.flatten(start_dim=1)

    # L2 norm
    grad_norm = gradients.norm(2, dim=1)

    # Two sided penalty
    gradient_penalty = ((grad_norm - 1) ** 2).mean()

    return gradient_penalty


class DUQTrainer:
    def __init__(self, l_gradient_penalty, length_scale, num_classes=10, embedding_size=16, gamma=0.999):
        self.num_classes = num_classes
        self.l_gradient_penalty = l_gradient_penalty
        self.model = CNN_DUQ(num_classes, embedding_size, False, length_scale, gamma)
        self.optimizer = torch.optim.SGD(
            self.model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4
        )
        self.history = {"loss": [], "bce": [], "gradient_penalty": []}

    def step(self, batch):
        model, optimizer = self.model, self.optimizer
        model.train()
        optimizer.zero_grad()

        x, y = batch
        y = F.one_hot(y, num_classes=self.num_classes).float()

        x.requires_grad_(True)

        y_pred = model(x)

        bce = F.binary_cross_entropy(y_pred, y)
        gradient_penalty = calc_gradient_penalty(x, y_pred.sum(1))
        self.history["gradient_penalty"].append(gradient_penalty.item())
        loss = bce + self.l_gradient_penalty * gradient_penalty

        x.requires_grad_(False)

        loss.backward()
        optimizer.step()

        with torch.no_grad():
            model.eval()
            model.update_embeddings(x, y)

        self.history["bce"].append(bce.item())
        self.history["loss"].append(loss.item())
        return loss.item()

    def fit(self, seeds):
        for seed in seeds:
            self.step(load_batch(seed))
        return self.history


def run(batches):
    random.seed(0)
    trainer = DUQTrainer(l_gradient_penalty=0.5, length_scale=0.1)
    history = trainer.fit(batches)
    return history
