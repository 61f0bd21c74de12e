# Source: https://github.com/LinZhu111/EVSNN/issues/6
# Shape: the spiking event-to-image network carries its membrane potentials from one voxel chunk to the next, which looks like an unbounded BPTT chain, but the trainer calls detach_states() before every chunk and logs loss.item(), so only the current chunk's graph is alive.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.v = None

    def reset(self):
        self.v = None

    def detach(self):
        if self.v is not None:
            self.v = self.v.detach()


class PLIFNode(MemoryModule):
    def __init__(self, tau=2.0, v_threshold=1.0):
        super().__init__()
        self.tau = tau
        self.v_threshold = v_threshold

    def forward(self, x):
        if self.v is None:
            self.v = torch.zeros_like(x)
        self.v = self.v + (x - self.v) / self.tau
        spike = torch.sigmoid(4.0 * (self.v - self.v_threshold))
        self.v = self.v * (1.0 - spike)
        return spike


class EVSNN(nn.Module):
    def __init__(self, in_channels=5, base=16):
        super().__init__()
        self.head = nn.Conv2d(in_channels, base, 3, padding=1)
        self.lif1 = PLIFNode()
        self.conv = nn.Conv2d(base, base, 3, padding=1)
        self.lif2 = PLIFNode()
        self.pred = nn.Conv2d(base, 1, 1)

    def memory_modules(self):
        return [m for m in self.modules() if isinstance(m, MemoryModule)]

    def reset_states(self):
        for m in self.memory_modules():
            m.reset()

    def detach_states(self):
        for m in self.memory_modules():
            m.detach()

    def forward(self, voxel):
        s1 = self.lif1(self.head(voxel))
        s2 = self.lif2(self.conv(s1))
        return torch.sigmoid(self.pred(s2 + s1))


def make_batches(n):
    g = torch.Generator().manual_seed(6)
    return [(torch.rand(2, 5, 24, 24, generator=g), torch.rand(2, 1, 24, 24, generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = EVSNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    model.reset_states()
    losses = []
    for voxel, frame in batches:
        model.detach_states()
        optimizer.zero_grad()
        pred = model(voxel)
        loss = F.l1_loss(pred, frame)
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
    return sum(losses) / len(losses)


if __name__ == "__main__":
    print(run(make_batches(5)))
