# Source: https://github.com/Quantinuum/lambeq/pull/251
# Shape: the helper returns (loss, logits) and the loop keeps the logits of every training step for an epoch-end metric; the logits still reference their step's graph.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

encoder = nn.Sequential(nn.Linear(300, 256), nn.ReLU(), nn.Linear(256, 4))
optimizer = torch.optim.AdamW(encoder.parameters(), lr=2e-4)


def compute_loss(batch):
    features, labels = batch
    logits = encoder(features)
    return F.cross_entropy(logits, labels), logits


def train_epoch(loader):
    epoch_logits = []
    epoch_labels = []
    for batch in loader:
        loss, logits = compute_loss(batch)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_logits.append(logits)  # TLK102
        epoch_labels.append(batch[1])
    all_logits = torch.cat(epoch_logits)
    return (all_logits.argmax(1) == torch.cat(epoch_labels)).float().mean().item()
