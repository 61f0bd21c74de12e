# Source: https://github.com/pdearena/pdearena/pull/4
# Shape: a step helper backwards the combined loss but returns the separate scalar and vector loss tensors, still attached; the epoch loop adds them to running totals, keeping every step's graph.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_step(model: nn.Module, optimizer, batch):
    x, y_scalar, y_vector = batch
    pred_scalar, pred_vector = model(x)
    scalar_loss = F.mse_loss(pred_scalar, y_scalar)
    vector_loss = F.mse_loss(pred_vector, y_vector)
    loss = scalar_loss + vector_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return scalar_loss, vector_loss


def train_epoch(model, optimizer, loader):
    total_scalar = 0.0
    total_vector = 0.0
    for batch in loader:
        s, v = train_step(model, optimizer, batch)
        total_scalar += s  # TLK101
        total_vector += v  # TLK101
    return total_scalar / len(loader), total_vector / len(loader)
