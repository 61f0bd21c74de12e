"""Small helpers shared by the trainer."""
import math

import torch


def check_loss(loss, loss_value):
    """Whether the step is usable: CTC gives inf (or nan) on alignments it cannot make."""
    if math.isinf(loss_value) or math.isnan(loss_value):
        return False, "WARNING: received an inf or nan loss"
    if loss_value < 0:
        return False, "WARNING: received a negative loss"
    return True, ""


def reduce_loss_value(loss):
    return loss.detach().float().mean().item()


def clip_and_step(loss, optimizer, parameters, max_norm):
    optimizer.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(parameters, max_norm)
    optimizer.step()
