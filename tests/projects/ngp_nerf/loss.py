import torch


def mape_loss(pred, target):
    # pred, target: [B, 1], torch tenspr
    difference = (pred - target).abs()
    scale = 1 / (target.abs() + 1e-2)
    loss = difference * scale
    return loss.mean()


def huber_loss(pred, target, delta=0.1, reduction='mean'):
    rel = (pred - target).abs()
    sqr = 0.5 / delta * rel * rel
    loss = torch.where(rel > delta, rel - 0.5 * delta, sqr)
    if reduction == 'mean':
        loss = loss.mean()
    return loss


def orientation_loss(weights, normals, dirs):
    """Ref-NeRF: penalise normals that face away from the camera. [N, T], [N, T, 3], [N, 3]"""
    n_dot_v = (normals * dirs[:, None, :]).sum(dim=-1)
    return (weights * torch.clamp(n_dot_v, min=0.0) ** 2).sum(dim=-1).mean()
