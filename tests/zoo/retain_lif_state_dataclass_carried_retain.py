# Source: https://github.com/norse/norse/pull/131
# Shape: a spiking classifier built from a leaky integrate-and-fire cell returns its membrane state as a small dataclass; the training loop passes the state returned for one batch into the next batch's forward and, after "Trying to backward through the graph a second time", was given retain_graph=True instead of a detach, so every batch's graph stays chained to the next.
# Verdict: leak
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class LIFState:
    v: torch.Tensor
    i: torch.Tensor


class LIFCell(nn.Module):
    def __init__(self, n_in, n_hidden, tau_mem=0.1, tau_syn=0.2, v_th=1.0):
        super().__init__()
        self.input_weights = nn.Linear(n_in, n_hidden, bias=False)
        self.tau_mem, self.tau_syn, self.v_th = tau_mem, tau_syn, v_th

    def forward(self, x, state):
        i = state.i + self.tau_syn * (-state.i + self.input_weights(x))
        v = state.v + self.tau_mem * (-state.v + i)
        spikes = torch.sigmoid(10 * (v - self.v_th))
        v = v - spikes * self.v_th
        return spikes, LIFState(v=v, i=i)


class SpikingClassifier(nn.Module):
    def __init__(self, n_in=34 * 34, n_hidden=128, n_classes=10):
        super().__init__()
        self.cell = LIFCell(n_in, n_hidden)
        self.readout = nn.Linear(n_hidden, n_classes)

    def forward(self, frames, state):
        rates = []
        for frame in frames.unbind(1):
            spikes, state = self.cell(frame.flatten(1), state)
            rates.append(spikes)
        return self.readout(torch.stack(rates, 1).mean(1)), state


def train(model, loader, optimizer, batch_size, n_hidden=128):
    state = LIFState(v=torch.zeros(batch_size, n_hidden), i=torch.zeros(batch_size, n_hidden))
    for frames, labels in loader:
        optimizer.zero_grad()
        logits, state = model(frames, state)
        loss = F.cross_entropy(logits, labels)
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
