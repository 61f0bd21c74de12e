# Source: https://github.com/fangwei123456/spikingjelly/issues/318
# Shape: LIF neurons keep their membrane potential v on the module across the T time steps of one sample, and the firing rate is summed over those steps and backwarded; the training loop then resets every neuron through a helper (reset_net walks the modules and puts v back to its resting value) after each optimizer step, so no batch starts from the previous batch's graph-attached potential.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_threshold=1.0, v_reset=0.0):
        super().__init__()
        self.tau = tau
        self.v_threshold = v_threshold
        self.v_reset = v_reset
        self.v = v_reset

    def forward(self, x):
        v = self.v + (x - (self.v - self.v_reset)) / self.tau
        spike = torch.sigmoid(4.0 * (v - self.v_threshold))
        self.v = v - spike * (v - self.v_reset)
        return spike

    def reset(self):
        self.v = self.v_reset


def reset_net(net):
    for m in net.modules():
        if hasattr(m, "reset"):
            m.reset()


def build_net(tau=2.0):
    return nn.Sequential(nn.Flatten(), nn.Linear(28 * 28, 10, bias=False), LIFNode(tau=tau))


def train(net, loader, epochs, T=8, lr=1e-3):
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        net.train()
        for img, label in loader:
            out_fr = 0.0
            for t in range(T):
                out_fr += net(img)
            out_fr = out_fr / T
            loss = F.mse_loss(out_fr, F.one_hot(label, 10).float())
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            reset_net(net)
