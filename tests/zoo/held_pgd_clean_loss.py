# Source: https://github.com/Trusted-AI/adversarial-robustness-toolbox/issues/348
# Shape: during PGD adversarial training the natural loss of each clean batch (forward pass with grad enabled, never backwarded) is appended to self.clean_losses for the epoch report, so every batch's forward graph stays alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallNet(nn.Module):
    def __init__(self, in_dim=32, hidden=64, num_classes=10):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.fc = nn.Linear(hidden, num_classes)

    def forward(self, x):
        return self.fc(self.body(x))


class LinfPGDAttack:
    def __init__(self, model, epsilon=0.1, alpha=0.025, steps=5, random_start=True):
        self.model = model
        self.epsilon = epsilon
        self.alpha = alpha
        self.steps = steps
        self.random_start = random_start

    def perturb(self, x, y):
        x_adv = x.detach().clone()
        if self.random_start:
            x_adv = x_adv + torch.empty_like(x_adv).uniform_(-self.epsilon, self.epsilon)
        for _ in range(self.steps):
            x_adv.requires_grad_(True)
            loss = F.cross_entropy(self.model(x_adv), y)
            grad, = torch.autograd.grad(loss, x_adv)
            x_adv = x_adv.detach() + self.alpha * grad.sign()
            x_adv = torch.min(torch.max(x_adv, x - self.epsilon), x + self.epsilon)
        return x_adv.detach()


class AdversarialTrainer:
    def __init__(self, model, lr=0.05):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=5e-4)
        self.attack = LinfPGDAttack(model)
        self.clean_losses = []
        self.clean_correct = 0
        self.adv_correct = 0
        self.seen = 0

    def train_step(self, x, y):
        self.model.train()
        x_adv = self.attack.perturb(x, y)
        logits_adv = self.model(x_adv)
        loss = F.cross_entropy(logits_adv, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()

        # bookkeeping: natural accuracy on the same batch, robust accuracy from the adversarial pass
        logits_clean = self.model(x)
        self.clean_losses.append(F.cross_entropy(logits_clean, y))  # TLK102
        self.clean_correct += (logits_clean.argmax(1) == y).sum().item()
        self.adv_correct += (logits_adv.argmax(1) == y).sum().item()
        self.seen += y.numel()
        return loss.item()

    def epoch_summary(self):
        clean_loss = sum(float(l) for l in self.clean_losses) / max(len(self.clean_losses), 1)
        return {"clean_loss": clean_loss,
                "clean_acc": self.clean_correct / max(self.seen, 1),
                "adv_acc": self.adv_correct / max(self.seen, 1)}


def make_batches(n):
    torch.manual_seed(0)
    # index lists, as a BatchSampler would yield them
    return [torch.randint(0, 256, (16,)).tolist() for _ in range(n)]


def run(batches):
    torch.manual_seed(1)
    data = torch.randn(256, 32)
    targets = data[:, :10].argmax(dim=1)
    model = SmallNet()
    trainer = AdversarialTrainer(model)
    for idx in batches:
        trainer.train_step(data[idx], targets[idx])
    return trainer.epoch_summary()
