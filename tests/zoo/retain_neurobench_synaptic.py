# Source: https://github.com/NeuroBench/neurobench/pull/75
# Shape: The second-order (Synaptic) LIF layer keeps its synaptic current `syn` as a module attribute; the generic reset helper only zeroes `mem`, so `syn` is carried from one batch into the next without detach, backward then reaches the previous batch's freed graph, and loss.backward(retain_graph=True) was added to silence that error, so every batch's input graph stays chained onto `syn`.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------------------
# minimal snnTorch-style neurons (init_hidden=True: the state lives on the module)

class ATan(torch.autograd.Function):
    """Heaviside forward, arctan surrogate backward."""

    @staticmethod
    def forward(ctx, mem_shift, alpha=2.0):
        ctx.save_for_backward(mem_shift)
        ctx.alpha = alpha
        return (mem_shift > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        (mem_shift,) = ctx.saved_tensors
        grad = ctx.alpha / 2 / (1 + (math.pi / 2 * ctx.alpha * mem_shift).pow(2)) * grad_output
        return grad, None


def atan(alpha=2.0):
    def inner(x):
        return ATan.apply(x, alpha)
    return inner


class SpikingNeuron(nn.Module):
    instances = []

    def __init__(self, threshold=1.0, spike_grad=None, init_hidden=True, output=False):
        super().__init__()
        SpikingNeuron.instances.append(self)
        self.threshold = threshold
        self.spike_grad = spike_grad if spike_grad is not None else atan()
        self.init_hidden = init_hidden
        self.output = output

    def fire(self, mem):
        return self.spike_grad(mem - self.threshold)

    def mem_reset(self, mem):
        # reset is not differentiated through
        return self.spike_grad(mem - self.threshold).clone().detach()


class Leaky(SpikingNeuron):
    def __init__(self, beta, **kwargs):
        super().__init__(**kwargs)
        self.beta = beta
        self.mem = torch.zeros(0)

    def reset_mem(self):
        self.mem = torch.zeros(0)

    def forward(self, input_):
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self.mem_reset(self.mem)
        self.mem = self.beta * self.mem + input_ - reset * self.threshold
        spk = self.fire(self.mem)
        if self.output:
            return spk, self.mem
        return spk


class Synaptic(SpikingNeuron):
    """Second order LIF: synaptic current syn feeds the membrane mem."""

    def __init__(self, alpha, beta, **kwargs):
        super().__init__(**kwargs)
        self.alpha = alpha
        self.beta = beta
        self.syn = torch.zeros(0)
        self.mem = torch.zeros(0)

    def reset_mem(self):
        self.mem = torch.zeros(0)

    def forward(self, input_):
        if self.syn.shape != input_.shape:
            self.syn = torch.zeros_like(input_)
        if self.mem.shape != input_.shape:
            self.mem = torch.zeros_like(input_)
        reset = self.mem_reset(self.mem)
        self.syn = self.alpha * self.syn + input_
        self.mem = self.beta * self.mem + self.syn - reset * self.threshold
        spk = self.fire(self.mem)
        if self.output:
            return spk, self.mem
        return spk


def reset(net):
    """snntorch.utils.reset: reset the hidden states of every neuron in net."""
    for m in net.modules():
        if isinstance(m, SpikingNeuron):
            m.reset_mem()


# --------------------------------------------------------------------------------------
# model / benchmark wrappers (neurobench SNNTorchModel style)

class SNN(nn.Module):
    def __init__(self, n_in=128, n_hidden=256, n_out=10, alpha=0.9, beta=0.85):
        super().__init__()
        self.fc1 = nn.Linear(n_in, n_hidden)
        self.lif1 = Synaptic(alpha=alpha, beta=beta, init_hidden=True)
        self.fc2 = nn.Linear(n_hidden, n_out)
        self.lif2 = Leaky(beta=beta, init_hidden=True, output=True)

    def forward(self, x):
        spk1 = self.lif1(self.fc1(x))
        spk2, mem2 = self.lif2(self.fc2(spk1))
        return spk2, mem2


class SNNTorchModel:
    def __init__(self, net):
        self.net = net

    def __call__(self, data):
        """data: (batch, time, features) -> spike counts (batch, classes)."""
        reset(self.net)
        spikes = []
        for step in range(data.size(1)):
            spk_out, _ = self.net(data[:, step])
            spikes.append(spk_out)
        return torch.stack(spikes).sum(0)


def ce_rate_loss(spk_rec, targets):
    """snntorch.functional.ce_rate_loss: cross entropy at every time step."""
    log_p = F.log_softmax(spk_rec, dim=-1)
    loss = 0
    for step in range(spk_rec.size(0)):
        loss = loss + F.nll_loss(log_p[step], targets)
    return loss / spk_rec.size(0)


def forward_pass(net, data):
    spk_rec = []
    reset(net)
    for step in range(data.size(1)):
        spk_out, _ = net(data[:, step])
        spk_rec.append(spk_out)
    return torch.stack(spk_rec)


def train_epoch(net, loader, optimizer):
    net.train()
    log = []
    for data, targets in loader:
        spk_rec = forward_pass(net, data)
        loss = ce_rate_loss(spk_rec, targets)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
        log.append(loss.item())
    return log


def test(model, loader):
    model.net.eval()
    correct = total = 0
    with torch.no_grad():
        for data, targets in loader:
            preds = model(data).argmax(-1)
            correct += (preds == targets).sum().item()
            total += targets.numel()
    return correct / max(total, 1)


def make_batches(steps, batch=32, num_steps=10, n_in=128, n_classes=10, seed=0):
    """Rate-coded spike trains for a synthetic 10-class keyword-spotting-like task."""
    g = torch.Generator().manual_seed(seed)
    rates = torch.rand(n_classes, n_in, generator=g) * 0.5
    batches = []
    for _ in range(steps):
        targets = torch.randint(0, n_classes, (batch,), generator=g)
        data = (torch.rand(batch, num_steps, n_in, generator=g) < rates[targets].unsqueeze(1)).float()
        batches.append((data, targets))
    return batches


def run(steps):
    torch.manual_seed(0)
    net = SNN()
    optimizer = torch.optim.Adam(net.parameters(), lr=2e-3, betas=(0.9, 0.999))
    model = SNNTorchModel(net)
    test_set = make_batches(2, seed=1)
    acc0 = test(model, test_set)  # untrained baseline, as in the neurobench examples
    loader = make_batches(steps)
    losses = train_epoch(net, loader, optimizer)
    if __name__ == "__main__":
        print(f"baseline acc {acc0:.3f}  train loss {losses[0]:.3f} -> {losses[-1]:.3f}")
    return net, losses


if __name__ == "__main__":
    run(10)
