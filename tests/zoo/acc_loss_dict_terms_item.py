# Source: https://github.com/jokester-zzz/SSA-SC/issues/2
# Shape: training and validation losses are kept in a dict per key; each update adds loss[key].item(), so the dict holds plain floats.
# Verdict: clean
import torch


def run_epoch(model, loader, optimizer, phase, device):
    training = phase == "train"
    model.train(training)
    epoch_losses = {}
    for batch in loader:
        voxels = batch["voxels"].to(device)
        with torch.set_grad_enabled(training):
            scores = model(voxels)
            loss = model.compute_loss(scores, batch["labels"].to(device))
        if training:
            optimizer.zero_grad()
            loss["total"].backward()
            optimizer.step()
        for key in loss:
            epoch_losses[key] = epoch_losses.get(key, 0.0) + loss[key].item()
    return {key: value / len(loader) for key, value in epoch_losses.items()}
