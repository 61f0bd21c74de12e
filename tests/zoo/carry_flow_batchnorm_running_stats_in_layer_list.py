# Source: https://github.com/bayesiains/nflows/pull/11
# Shape: A normalizing flow's BatchNorm transform updates its running mean/variance buffers in place from batch statistics that still carry the graph, so the buffers chain every step.
# Verdict: leak
import math
import torch
import torch.nn as nn


class BatchNormTransform(nn.Module):
    def __init__(self, features, momentum=0.1, eps=1e-5):
        super().__init__()
        self.momentum = momentum
        self.eps = eps
        self.log_gamma = nn.Parameter(torch.zeros(features))
        self.beta = nn.Parameter(torch.zeros(features))
        self.register_buffer("running_mean", torch.zeros(features))
        self.register_buffer("running_var", torch.ones(features))

    def forward(self, x):
        if self.training:
            mean, var = x.mean(0), x.var(0)
            self.running_mean.mul_(1 - self.momentum).add_(mean * self.momentum)  # TLK103
            self.running_var.mul_(1 - self.momentum).add_(var * self.momentum)  # TLK103
        else:
            mean, var = self.running_mean, self.running_var
        z = self.log_gamma.exp() * (x - mean) / torch.sqrt(var + self.eps) + self.beta
        logdet = (self.log_gamma - 0.5 * torch.log(var + self.eps)).sum().expand(x.shape[0])
        return z, logdet


class AffineCoupling(nn.Module):
    def __init__(self, features, hidden=32, flip=False):
        super().__init__()
        self.flip = flip
        half = features // 2
        self.net = nn.Sequential(nn.Linear(half, hidden), nn.ReLU(), nn.Linear(hidden, 2 * (features - half)))

    def forward(self, x):
        half = x.shape[1] // 2
        a, b = (x[:, half:], x[:, :half]) if self.flip else (x[:, :half], x[:, half:])
        shift, raw_scale = self.net(a).chunk(2, dim=1)
        log_s = torch.tanh(raw_scale)
        b = b * log_s.exp() + shift
        out = torch.cat([b, a], dim=1) if self.flip else torch.cat([a, b], dim=1)
        return out, log_s.sum(dim=1)


class Flow(nn.Module):
    def __init__(self, features=4, n_blocks=3):
        super().__init__()
        layers = []
        for i in range(n_blocks):
            layers += [AffineCoupling(features, flip=bool(i % 2)), BatchNormTransform(features)]
        self.layers = nn.ModuleList(layers)

    def log_prob(self, x):
        total_logdet = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            total_logdet = total_logdet + ld
        base = -0.5 * (x.pow(2).sum(1) + x.shape[1] * math.log(2 * math.pi))
        return base + total_logdet


def train_flow(flow, loader, optimizer, clip=5.0):
    flow.train()
    losses = []
    for x in loader:
        optimizer.zero_grad()
        nll = -flow.log_prob(x).mean()
        nll.backward()
        nn.utils.clip_grad_norm_(flow.parameters(), clip)
        optimizer.step()
        losses.append(nll.item())
    return losses


@torch.no_grad()
def evaluate(flow, x):
    flow.eval()
    return -flow.log_prob(x).mean().item()


def make_batches(n=24, seed=0, bs=64):
    g = torch.Generator().manual_seed(seed)
    mix = torch.tensor([[2.0, 0.0, 1.0, -1.0], [-2.0, 1.0, 0.0, 1.0]])
    out = []
    for _ in range(n):
        k = torch.randint(0, 2, (bs,), generator=g)
        out.append(mix[k] + 0.5 * torch.randn(bs, 4, generator=g))
    return out


def run(batches):
    torch.manual_seed(0)
    flow = Flow()
    optimizer = torch.optim.Adam(flow.parameters(), lr=1e-3)
    losses = train_flow(flow, batches, optimizer)
    print(f"train nll {losses[0]:.3f} -> {losses[-1]:.3f}; held-out nll {evaluate(flow, make_batches(n=1, seed=1)[0]):.3f}")
    return losses


if __name__ == "__main__":
    run(make_batches())
