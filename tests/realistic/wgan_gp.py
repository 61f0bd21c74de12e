# WGAN-GP with a gradient-penalty helper: clean.
import torch
from torch import autograd


def compute_gradient_penalty(D, real_samples, fake_samples):
    alpha = torch.rand(real_samples.size(0), 1, 1, 1)
    interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
    d_interpolates = D(interpolates)
    fake = torch.ones(real_samples.shape[0], 1)
    gradients = autograd.grad(
        outputs=d_interpolates,
        inputs=interpolates,
        grad_outputs=fake,
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    gradients = gradients.view(gradients.size(0), -1)
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for epoch in range(n_epochs):
    for i, (imgs, _) in enumerate(dataloader):
        optimizer_D.zero_grad()
        z = torch.randn(imgs.shape[0], latent_dim)
        fake_imgs = generator(z)
        real_validity = discriminator(imgs)
        fake_validity = discriminator(fake_imgs)
        gradient_penalty = compute_gradient_penalty(discriminator, imgs.data, fake_imgs.data)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + 10 * gradient_penalty
        d_loss.backward()
        optimizer_D.step()
