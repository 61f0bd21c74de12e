# Source: https://github.com/norse/norse/pull/131
# Shape: a spiking classifier keeps its LIF membrane/current state on the model between batches and backs each batch with retain_graph=True so the stale state does not raise.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def spike_fn(v, thr=1.0, slope=5.0):
    return torch.sigmoid(slope * (v - thr))


class LIFClassifier(nn.Module):
    def __init__(self, n_in=10, n_hid=24, n_out=3, dt=0.1, tau_mem=0.5, tau_syn=0.2):
        super().__init__()
        self.fc_in = nn.Linear(n_in, n_hid)
        self.readout = nn.Linear(n_hid, n_out)
        self.dt, self.tau_mem, self.tau_syn = dt, tau_mem, tau_syn
        self.state = None

    def step(self, x, state):
        v, i = state
        i = i + self.dt / self.tau_syn * (-i) + self.fc_in(x)
        v = v + self.dt / self.tau_mem * (i - v)
        z = spike_fn(v)
        v = v * (1 - z)
        return z, (v, i)

    def forward(self, seq):
        if self.state is None:
            zeros = torch.zeros(seq.size(1), self.fc_in.out_features)
            self.state = (zeros, zeros.clone())
        counts = 0
        state = self.state
        for t in range(seq.size(0)):
            z, state = self.step(seq[t], state)
            counts = counts + z
        self.state = state
        return self.readout(counts / seq.size(0))


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [((torch.rand(6, 4, 10, generator=g) < 0.3).float(), torch.randint(0, 3, (4,), generator=g)) for _ in range(n)]


def train(model, opt, batches):
    for spikes, label in batches:
        logits = model(spikes)
        loss = F.cross_entropy(logits, label)
        opt.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        opt.step()
    return loss.item()


def run(batches):
    model = LIFClassifier()
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    print("last loss", train(model, opt, batches))


if __name__ == "__main__":
    run(make_batches())
