# Source: https://github.com/jeshraghian/snntorch/issues/250
# Shape: a spiking convolutional network keeps each leaky neuron's membrane potential on the neuron module and updates it in forward(); nothing resets it between batches, so each batch starts from the previous batch's graph-attached potential and the second backward raises "Trying to backward through the graph a second time". The spike record stacked inside forward is returned and backwarded, as intended.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class LeakyNeuron(nn.Module):
    def __init__(self, beta=0.9, threshold=1.0):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.mem = torch.zeros(1)

    def forward(self, current):
        mem = self.beta * self.mem + current
        spikes = torch.sigmoid(5.0 * (mem - self.threshold))
        self.mem = mem - spikes * self.threshold  # TLK103
        return spikes


class SpikingConvNet(nn.Module):
    def __init__(self, num_steps=25):
        super().__init__()
        self.num_steps = num_steps
        self.conv1 = nn.Conv2d(1, 12, 5)
        self.lif1 = LeakyNeuron()
        self.conv2 = nn.Conv2d(12, 64, 5)
        self.lif2 = LeakyNeuron()
        self.fc = nn.Linear(64 * 4 * 4, 10)
        self.lif3 = LeakyNeuron()

    def forward(self, x):
        spike_record = []
        for step in range(self.num_steps):
            h = self.lif1(F.max_pool2d(self.conv1(x), 2))
            h = self.lif2(F.max_pool2d(self.conv2(h), 2))
            spike_record.append(self.lif3(self.fc(h.flatten(1))))
        return torch.stack(spike_record)


def train(net, loader, epochs=1, lr=2e-3):
    optimizer = torch.optim.Adam(net.parameters(), lr=lr)
    for epoch in range(epochs):
        for data, targets in loader:
            spike_record = net(data)
            loss = F.cross_entropy(spike_record.sum(0), targets)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
