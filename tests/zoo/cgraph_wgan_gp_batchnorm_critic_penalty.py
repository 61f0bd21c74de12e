# Source: https://github.com/pytorch/pytorch/issues/2309
# Shape: a WGAN-GP critic with BatchNorm layers: each step takes the gradient of the critic output with respect to random input images with create_graph=True, turns its norm into the penalty, zeroes the critic's grads and backwards the penalty loss; the double-backward graph is consumed by that backward every iteration (the growth in the report was a BatchNorm double-backward bug in PyTorch 0.2, not the user's code).
# Verdict: clean
import torch
import torch.nn as nn

D = nn.Sequential(
    nn.Conv2d(3, 64, kernel_size=4, stride=2, padding=1),
    nn.BatchNorm2d(64),
    nn.LeakyReLU(0.2),
)


def penalty_steps(critic, image_batches, lr=1e-4):
    optimizer = torch.optim.Adam(critic.parameters(), lr=lr)
    for images in image_batches:
        x = images.clone().requires_grad_(True)
        out = critic(x)
        grad = torch.autograd.grad(outputs=out, inputs=x, grad_outputs=torch.ones_like(out),
                                   retain_graph=True, create_graph=True, only_inputs=True)[0]
        grad_norm = grad.pow(2).sum().sqrt()
        loss = torch.mean((grad_norm - 1) ** 2)
        critic.zero_grad()
        loss.backward()
        optimizer.step()
