# Source: https://github.com/Koukyosyumei/AIJack/issues/133
# Shape: deep-leakage-from-gradients reconstruction with LBFGS: the closure differentiates the dummy loss with create_graph=True and backwards the gradient-matching distance through that graph every call; nothing but detached snapshots of the dummy image is kept between iterations.
# Verdict: clean
import torch
import torch.nn.functional as F


def cross_entropy_soft(pred, soft_target):
    return torch.mean(torch.sum(-soft_target * F.log_softmax(pred, dim=-1), dim=1))


def reconstruct(net, origin_grads, data_shape, num_classes, iterations=300, snapshot_every=10):
    dummy_data = torch.randn(data_shape).requires_grad_(True)
    dummy_label = torch.randn(data_shape[0], num_classes).requires_grad_(True)
    optimizer = torch.optim.LBFGS([dummy_data, dummy_label], lr=1.0, max_iter=4)
    snapshots, distances = [], []

    def closure():
        optimizer.zero_grad()
        dummy_pred = net(dummy_data)
        dummy_loss = cross_entropy_soft(dummy_pred, F.softmax(dummy_label, dim=-1))
        dummy_dy_dx = torch.autograd.grad(dummy_loss, net.parameters(), create_graph=True)
        grad_diff = sum(((gx - gy) ** 2).sum() for gx, gy in zip(dummy_dy_dx, origin_grads))
        grad_diff.backward()
        return grad_diff

    for it in range(iterations):
        optimizer.step(closure)
        if it % snapshot_every == 0:
            distances.append(closure().item())
            snapshots.append(dummy_data.detach().clone())
    return snapshots, distances
