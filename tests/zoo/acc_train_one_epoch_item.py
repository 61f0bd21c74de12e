# Source: https://github.com/samuelyu2002/ImVisible/issues/2
# Shape: the fixed version of a multi-term training loop: every running sum takes .item() of its loss term, so only Python floats outlive the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


def train_one_epoch(model, loader, optimizer, device):
    model.train()
    running_loss = 0.0
    running_mse = 0.0
    running_ce = 0.0
    for step, (frames, targets, classes) in enumerate(loader):
        frames = frames.to(device)
        optimizer.zero_grad()
        pred_box, pred_cls = model(frames)
        mse = F.mse_loss(pred_box, targets.to(device))
        ce = F.cross_entropy(pred_cls, classes.to(device))
        loss = mse + 0.5 * ce
        loss.backward()
        optimizer.step()
        running_loss += loss.item()
        running_mse += mse.item()
        running_ce += ce.item()
        if step % 50 == 49:
            print(f"[{step + 1}] loss {running_loss / 50:.3f} mse {running_mse / 50:.3f} ce {running_ce / 50:.3f}")
            running_loss = running_mse = running_ce = 0.0
