# Source: https://pytorch.org/docs/stable/notes/amp_examples.html
# Shape: the typical autocast + GradScaler loop, keeping an epoch total of loss.detach() and a float() of the scaled loss for logging: neither carries a graph.
# Verdict: clean
import torch
from torch.amp import GradScaler, autocast


def train(model, optimizer, loss_fn, data, epochs):
    scaler = GradScaler("cuda")
    for epoch in range(epochs):
        epoch_loss = torch.zeros((), device="cuda")
        last_scaled = 0.0
        for inputs, target in data:
            optimizer.zero_grad(set_to_none=True)
            with autocast(device_type="cuda", dtype=torch.float16):
                output = model(inputs)
                loss = loss_fn(output, target)
            scaled = scaler.scale(loss)
            scaled.backward()
            scaler.step(optimizer)
            scaler.update()
            epoch_loss += loss.detach()
            last_scaled = float(scaled)
        print(epoch, (epoch_loss / len(data)).item(), last_scaled)
