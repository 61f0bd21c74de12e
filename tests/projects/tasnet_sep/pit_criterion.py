"""SI-SNR with utterance-level permutation invariant training."""
from itertools import permutations

import torch

EPS = 1e-8


def _pairwise_si_snr(source, estimate):
    s = source - source.mean(dim=2, keepdim=True)
    e = estimate - estimate.mean(dim=2, keepdim=True)
    s_t = s.unsqueeze(1)  # [B, 1, C, T]
    e_t = e.unsqueeze(2)  # [B, C, 1, T]
    dot = (e_t * s_t).sum(dim=3, keepdim=True)
    proj = dot * s_t / ((s_t ** 2).sum(dim=3, keepdim=True) + EPS)
    noise = e_t - proj
    ratio = (proj ** 2).sum(dim=3) / ((noise ** 2).sum(dim=3) + EPS)
    return 10 * torch.log10(ratio + EPS)  # [B, C(est), C(src)]


def cal_loss(source, estimate, lengths):
    """Returns (loss, max_snr, estimate, reordered estimate); the caller backwards loss."""
    B, C, T = source.shape
    pw = _pairwise_si_snr(source, estimate)
    perms = torch.tensor(list(permutations(range(C))), dtype=torch.long)
    one_hot = torch.zeros(perms.size(0), C, C).scatter_(2, perms.unsqueeze(2), 1.0)
    snr_set = torch.einsum("bij,pij->bp", pw, one_hot)
    max_snr, best = snr_set.max(dim=1)
    max_snr = max_snr / C
    loss = -max_snr.mean()
    order = perms[best]  # [B, C]
    reordered = torch.stack([estimate[b, order[b]] for b in range(B)])
    return loss, max_snr, estimate, reordered
