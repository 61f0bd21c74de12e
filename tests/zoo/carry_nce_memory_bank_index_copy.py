# Source: https://github.com/HobbitLong/CMC/blob/21ce9e0cc559a98ba388ffd3c24ce4b6c6ea9ee8/NCE/NCEAverage.py
# Shape: an instance-discrimination memory bank (a registered buffer) is refreshed in forward() by a momentum blend of the stored rows with the current attached features, written back with index_copy_, without the torch.no_grad() block of the original; the buffer's autograd history links every batch's graph to the next, although the scores only read detached rows.
# Verdict: leak
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class MemoryBankNCE(nn.Module):
    def __init__(self, feature_dim, num_samples, num_negatives=4096, temperature=0.07, momentum=0.5):
        super().__init__()
        self.num_samples = num_samples
        self.num_negatives = num_negatives
        self.temperature = temperature
        self.momentum = momentum
        stdv = 1.0 / math.sqrt(feature_dim / 3)
        self.register_buffer("memory", torch.rand(num_samples, feature_dim).mul_(2 * stdv).add_(-stdv))

    def forward(self, features, index):
        batch_size = features.size(0)
        idx = torch.randint(0, self.num_samples, (batch_size, self.num_negatives + 1), device=features.device)
        idx[:, 0] = index
        weights = torch.index_select(self.memory, 0, idx.view(-1)).detach().view(batch_size, -1, features.size(1))
        scores = torch.bmm(weights, features.unsqueeze(2)).squeeze(2) / self.temperature

        positives = torch.index_select(self.memory, 0, index)
        positives.mul_(self.momentum)
        positives.add_(features * (1 - self.momentum))
        updated = F.normalize(positives, dim=1)
        self.memory.index_copy_(0, index, updated)  # TLK103
        return scores


def train(encoder, memory_bank: MemoryBankNCE, loader, optimizer, epochs):
    for epoch in range(epochs):
        encoder.train()
        for images, _, index in loader:
            features = F.normalize(encoder(images.cuda()), dim=1)
            scores = memory_bank(features, index.cuda())
            loss = F.cross_entropy(scores, torch.zeros(scores.size(0), dtype=torch.long, device=scores.device))
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
