# Source: https://github.com/pytorch/pytorch/pull/41203
# Shape: a mixed-precision loop with two models and two losses that both mix the two models' outputs, one GradScaler and two optimizers, as in the AMP examples; the first scaled backward retains the graph because the second loss goes through the same outputs, and the second backward frees it, so no graph outlives the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def make_model(d_in=32, d_out=8, width=64):
    return nn.Sequential(nn.Linear(d_in, width), nn.ReLU(), nn.Linear(width, d_out))


def train_two_models(model0, model1, loader, device="cpu", use_amp=True, epochs=1):
    optimizer0 = torch.optim.SGD(model0.parameters(), lr=1e-2)
    optimizer1 = torch.optim.SGD(model1.parameters(), lr=1e-2)
    scaler = torch.amp.GradScaler(device, enabled=use_amp)
    stats = []
    for epoch in range(epochs):
        for inputs, target in loader:
            optimizer0.zero_grad()
            optimizer1.zero_grad()
            with torch.autocast(device, dtype=torch.bfloat16, enabled=use_amp):
                output0 = model0(inputs)
                output1 = model1(inputs)
                loss0 = F.mse_loss(2 * output0 + 3 * output1, target)
                loss1 = F.mse_loss(3 * output0 - 5 * output1, target)
            scaler.scale(loss0).backward(retain_graph=True)
            scaler.scale(loss1).backward()
            scaler.unscale_(optimizer0)
            nn.utils.clip_grad_norm_(model0.parameters(), 1.0)
            scaler.step(optimizer0)
            scaler.step(optimizer1)
            scaler.update()
            stats.append((loss0.item(), loss1.item()))
    return stats
