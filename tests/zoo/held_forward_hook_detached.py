# Source: https://github.com/deeplearning-wisc/react/blob/master/compute_threshold.py
# Shape: feature-extraction hooks store output.detach() (a list that is read per batch, and a dict slot overwritten by every call); the training loop keeps nothing with a graph.
# Verdict: clean
import numpy as np
import torch
import torch.nn as nn

activation = {}
pooled = []


def get_activation(name):
    def hook(module, inputs, output):
        activation[name] = output.detach()
        pooled.append(output.detach().mean(dim=(2, 3)).cpu())

    return hook


def train_and_profile(model: nn.Module, loader, optimizer):
    model.avgpool.register_forward_hook(get_activation("avgpool"))
    for images, labels in loader:
        optimizer.zero_grad()
        loss = nn.functional.cross_entropy(model(images.cuda()), labels.cuda())
        loss.backward()
        optimizer.step()
    features = torch.cat(pooled).numpy()
    return np.percentile(features.flatten(), 90)
