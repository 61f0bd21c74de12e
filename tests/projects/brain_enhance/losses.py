"""Losses and metric functions (speechbrain.nnet.losses, trimmed)."""

import torch


def length_to_mask(length, max_len):
    steps = torch.arange(max_len, device=length.device)
    return (steps[None, :] < (length[:, None] * max_len).round()).float()


def compute_masked_loss(loss_fn, predictions, targets, length=None, reduction="mean"):
    loss = loss_fn(predictions, targets)
    mask = torch.ones_like(loss)
    if length is not None:
        mask = length_to_mask(length, loss.shape[1])[..., None].expand_as(loss)
    loss = loss * mask
    if reduction == "mean":
        return loss.sum() / mask.sum()
    if reduction == "batch":
        return loss.reshape(loss.shape[0], -1).sum(1) / mask.reshape(mask.shape[0], -1).sum(1)
    return loss


def mse_loss(predictions, targets, length=None, reduction="mean"):
    return compute_masked_loss(lambda p, t: (p - t).pow(2), predictions, targets, length, reduction)


def l1_loss(predictions, targets, length=None, reduction="mean"):
    return compute_masked_loss(lambda p, t: (p - t).abs(), predictions, targets, length, reduction)


def si_snr(estimate, reference, eps=1e-8):
    """Scale-invariant SNR in dB, one value per utterance: [B]."""
    estimate = estimate - estimate.mean(dim=-1, keepdim=True)
    reference = reference - reference.mean(dim=-1, keepdim=True)
    proj = (estimate * reference).sum(-1, keepdim=True) * reference
    proj = proj / (reference.pow(2).sum(-1, keepdim=True) + eps)
    noise = estimate - proj
    ratio = proj.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps)
    return 10 * torch.log10(ratio + eps)


def si_snr_metric(predictions, targets, length=None, reduction="batch"):
    return si_snr(predictions, targets)


def total_objective(spec_loss, wav_loss=None, wav_weight=0.0):
    """Weighted sum of the objectives; the Brain backwards the returned value."""
    total = spec_loss
    if wav_loss is not None and wav_weight > 0:
        total = total + wav_weight * wav_loss
    return total


def snr_improvement(enhanced, noisy, clean):
    """SI-SNR improvement (dB) as a python float, for logging."""
    with torch.no_grad():
        return (si_snr(enhanced, clean) - si_snr(noisy, clean)).mean().item()
