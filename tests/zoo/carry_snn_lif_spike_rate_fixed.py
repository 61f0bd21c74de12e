# Source: https://github.com/fangwei123456/spikingjelly/issues/514
# Shape: the running spike_rate on self is updated from rate.detach(), so it no longer chains each batch's spike graph; the loss still backpropagates through the spikes.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LIFNeuron(nn.Module):
    """LIF neuron with device parameters (Rd, Cm, Rs, Vth, V_reset, dt)."""

    def __init__(self, batch_size, dim_in, Rd=5.0e3, Cm=3.0e-6, Rs=1.5, Vth=0.8, V_reset=0.0, dt=1.0e-6):
        super().__init__()
        self.batch_size = batch_size
        self.dim_in = tuple(dim_in)
        self.rd = Rd
        self.cm = Cm
        self.rs = Rs
        self.vth = Vth
        self.v_reset = V_reset
        self.dt = dt
        self.tau_in = 1 / (self.cm * self.rs)
        self.tau_lk = 1 / (self.cm) * (1 / self.rd + 1 / self.rs)
        self.v = None
        self.spike_rate = torch.zeros(self.dim_in)
        self.momentum = 0.1

    @staticmethod
    def soft_spike(x):
        a = 2.0
        return torch.sigmoid(a * x)

    def reset(self):
        self.v = torch.full([self.batch_size, *self.dim_in], self.v_reset)

    def forward(self, current):
        if self.v is None:
            self.reset()
        self.v = self.v + self.dt * (self.tau_in * current - self.tau_lk * self.v) * 1e-3
        spike = self.soft_spike(self.v - self.vth)
        self.v = self.v * (1.0 - spike) + self.v_reset * spike
        if self.training:
            rate = spike.pow(2).mean(0)
            self.spike_rate = (1 - self.momentum) * self.spike_rate + self.momentum * rate.detach()
        return spike


class SNN(nn.Module):
    def __init__(self, batch_size, n_in=128, n_hidden=256, n_out=10, T=4):
        super().__init__()
        self.T = T
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.lif1 = LIFNeuron(batch_size, [n_hidden])
        self.fc2 = nn.Linear(n_hidden, n_out)
        self.lif2 = LIFNeuron(batch_size, [n_out])

    def reset_neurons(self):
        for m in self.modules():
            if isinstance(m, LIFNeuron):
                m.reset()

    def forward(self, x):
        self.reset_neurons()
        out = 0.0
        for t in range(self.T):
            s1 = self.lif1(self.fc1(x) * 50.0)
            s2 = self.lif2(self.fc2(s1) * 50.0)
            out = out + s2
        return out / self.T


def make_batches(n):
    g = torch.Generator().manual_seed(514)
    return [(torch.rand(16, 128, generator=g), torch.randint(0, 10, (16,), generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    net = SNN(batch_size=16)
    optimizer = torch.optim.Adam(net.parameters(), lr=1e-3)
    net.train()
    train_loss = 0.0
    for img, label in batches:
        optimizer.zero_grad()
        out_fr = net(img)
        loss = F.mse_loss(out_fr, F.one_hot(label, 10).float())
        loss.backward()
        optimizer.step()
        train_loss += loss.item()
    return train_loss / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
