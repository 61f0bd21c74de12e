# Source: https://github.com/facebookresearch/mmf/pull/560
# Shape: a multi-task step sums its per-head losses into step_loss, which is created anew at the top of every iteration and backwarded; the epoch figure is kept with .item().
# Verdict: clean
import torch


def train_epoch(model, heads, loader, optimizer, weights):
    epoch_total = 0.0
    for batch in loader:
        step_loss = 0.0
        features = model(batch["image"].cuda())
        for name, head in heads.items():
            step_loss = step_loss + weights[name] * head.loss(features, batch[name].cuda())
        optimizer.zero_grad()
        step_loss.backward()
        optimizer.step()
        epoch_total += step_loss.item()
    return epoch_total / len(loader)
