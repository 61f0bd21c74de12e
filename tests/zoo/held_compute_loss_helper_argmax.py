# Source: https://github.com/Quantinuum/lambeq/pull/251
# Shape: a compute_loss(batch) helper returns (loss, logits.argmax(1)); the loop stores the second element every step, an integer tensor with no graph, and backwards the first.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

encoder = nn.Sequential(nn.Linear(300, 256), nn.ReLU(), nn.Linear(256, 4))
optimizer = torch.optim.AdamW(encoder.parameters(), lr=2e-4)


def compute_loss(batch):
    features, labels = batch
    logits = encoder(features)
    return F.cross_entropy(logits, labels), logits.argmax(1)


def train(loader, epochs=3):
    predictions = []
    for _ in range(epochs):
        for batch in loader:
            loss, predicted = compute_loss(batch)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            predictions.append(predicted)
    return torch.cat(predictions)
