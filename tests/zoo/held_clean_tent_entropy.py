# Source: https://github.com/DequanWang/tent/blob/7d236b42a3020f488a75d041f31a3f4ef4a521ea/tent.py
# Shape: Tent returns the attached outputs from forward_and_adapt, but the evaluation loop only keeps argmax counts and the running entropy average is fed loss.item(), so no batch's graph is carried to the next.
# Verdict: clean
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Tent(nn.Module):
    """Tent adapts a model by entropy minimization during testing.

    Once tented, a model adapts itself by updating on every forward.
    """

    def __init__(self, model, optimizer, steps=1, episodic=False, ema_momentum=0.9):
        super().__init__()
        self.model = model
        self.optimizer = optimizer
        self.steps = steps
        self.episodic = episodic
        self.ema_momentum = ema_momentum
        self.entropy_ema = None  # running average of the adaptation loss, for monitoring collapse
        self.model_state, self.optimizer_state = copy_model_and_optimizer(self.model, self.optimizer)

    def forward(self, x):
        if self.episodic:
            self.reset()
        for _ in range(self.steps):
            outputs, loss = forward_and_adapt(x, self.model, self.optimizer)
            self.update_entropy_ema(loss.item())
        return outputs

    def update_entropy_ema(self, value):
        if self.entropy_ema is None:
            self.entropy_ema = value
        else:
            self.entropy_ema = self.ema_momentum * self.entropy_ema + (1 - self.ema_momentum) * value

    def reset(self):
        load_model_and_optimizer(self.model, self.optimizer, self.model_state, self.optimizer_state)


def softmax_entropy(x: torch.Tensor) -> torch.Tensor:
    """Entropy of softmax distribution from logits."""
    return -(x.softmax(1) * x.log_softmax(1)).sum(1)


@torch.enable_grad()
def forward_and_adapt(x, model, optimizer):
    outputs = model(x)
    loss = softmax_entropy(outputs).mean(0)
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
    return outputs, loss


def collect_params(model):
    params, names = [], []
    for nm, m in model.named_modules():
        if isinstance(m, nn.BatchNorm2d):
            for np_, p in m.named_parameters():
                if np_ in ['weight', 'bias']:
                    params.append(p)
                    names.append(f"{nm}.{np_}")
    return params, names


def copy_model_and_optimizer(model, optimizer):
    return deepcopy(model.state_dict()), deepcopy(optimizer.state_dict())


def load_model_and_optimizer(model, optimizer, model_state, optimizer_state):
    model.load_state_dict(model_state, strict=True)
    optimizer.load_state_dict(optimizer_state)


def configure_model(model):
    model.train()
    model.requires_grad_(False)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.requires_grad_(True)
            m.track_running_stats = False
            m.running_mean = None
            m.running_var = None
    return model


class WideResNetTiny(nn.Module):
    def __init__(self, num_classes=10, width=16):
        super().__init__()
        self.conv1 = nn.Conv2d(3, width, 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = nn.Conv2d(width, 2 * width, 3, stride=2, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(2 * width)
        self.fc = nn.Linear(2 * width, num_classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = F.relu(self.bn2(self.conv2(x)))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))


class CIFAR10C:
    def __init__(self, size=256, severity=5):
        g = torch.Generator().manual_seed(13)
        self.x = torch.randn(size, 3, 16, 16, generator=g) + 0.2 * severity * torch.randn(size, 3, 1, 1, generator=g)
        self.y = torch.randint(0, 10, (size,), generator=g)


def make_batches(n):
    torch.manual_seed(0)
    return [torch.randint(0, 256, (32,)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = configure_model(WideResNetTiny())
    params, _ = collect_params(model)
    optimizer = torch.optim.Adam(params, lr=1e-3, betas=(0.9, 0.999))
    tented = Tent(model, optimizer)
    data = CIFAR10C()
    correct = 0
    for idx in batches:
        outputs = tented(data.x[idx])
        correct += (outputs.max(1)[1] == data.y[idx]).float().sum().item()
    return correct, tented.entropy_ema
