# Source: https://github.com/eriklindernoren/PyTorch-GAN/blob/master/implementations/wgan_gp/wgan_gp.py
# Shape: the create_graph=True gradients are consumed by the penalty that d_loss backpropagates, and only grad_norm.mean().item() (a float) is kept for monitoring, so the double-backward graph dies with the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.autograd as autograd


class Generator(nn.Module):
    def __init__(self, latent_dim=8, img_dim=16):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(latent_dim, 32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, img_dim), nn.Tanh())

    def forward(self, z):
        return self.model(z)


class Discriminator(nn.Module):
    def __init__(self, img_dim=16):
        super().__init__()
        self.model = nn.Sequential(
            nn.Linear(img_dim, 32), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(32, 16), nn.LeakyReLU(0.2, inplace=True),
            nn.Linear(16, 1))

    def forward(self, img):
        return self.model(img.view(img.shape[0], -1))


class WGANGPTrainer:
    def __init__(self, generator, discriminator, latent_dim=8, n_critic=2, lambda_gp=10.0, lr=2e-4):
        self.generator = generator
        self.discriminator = discriminator
        self.latent_dim = latent_dim
        self.n_critic = n_critic
        self.lambda_gp = lambda_gp
        self.optimizer_G = torch.optim.Adam(generator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(discriminator.parameters(), lr=lr, betas=(0.5, 0.999))
        self.grad_norm_history = []
        self.d_losses = []
        self.g_losses = []

    def compute_gradient_penalty(self, real_samples, fake_samples):
        """Calculates the gradient penalty loss for WGAN GP"""
        alpha = torch.rand(real_samples.size(0), 1)
        interpolates = (alpha * real_samples + ((1 - alpha) * fake_samples)).requires_grad_(True)
        d_interpolates = self.discriminator(interpolates)
        fake = torch.ones(real_samples.shape[0], 1)
        gradients = autograd.grad(
            outputs=d_interpolates, inputs=interpolates, grad_outputs=fake,
            create_graph=True, retain_graph=True, only_inputs=True)[0]
        grad_norm = gradients.view(gradients.size(0), -1).norm(2, dim=1)
        gradient_penalty = ((grad_norm - 1) ** 2).mean()
        return gradient_penalty, grad_norm

    def train_step(self, real_imgs, i):
        # ---------------------
        #  Train Discriminator
        # ---------------------
        self.optimizer_D.zero_grad()
        z = torch.randn(real_imgs.shape[0], self.latent_dim)
        fake_imgs = self.generator(z)
        real_validity = self.discriminator(real_imgs)
        fake_validity = self.discriminator(fake_imgs.detach())
        gradient_penalty, grad_norm = self.compute_gradient_penalty(real_imgs.data, fake_imgs.data)
        d_loss = -torch.mean(real_validity) + torch.mean(fake_validity) + self.lambda_gp * gradient_penalty
        d_loss.backward()
        self.optimizer_D.step()
        self.d_losses.append(d_loss.item())
        self.grad_norm_history.append(grad_norm.mean().item())

        # Train the generator every n_critic steps
        if i % self.n_critic == 0:
            self.optimizer_G.zero_grad()
            fake_imgs = self.generator(z)
            g_loss = -torch.mean(self.discriminator(fake_imgs))
            g_loss.backward()
            self.optimizer_G.step()
            self.g_losses.append(g_loss.item())


def make_batches(n):
    g = torch.Generator().manual_seed(10)
    batches = []
    for _ in range(n):
        phase = torch.rand(16, 1, generator=g) * 6.28
        real = torch.sin(phase + torch.linspace(0, 3.14, 16)) * 0.8
        batches.append(real)
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    trainer = WGANGPTrainer(Generator(), Discriminator())
    for i, real_imgs in enumerate(batches):
        trainer.train_step(real_imgs, i)
        if probe is not None:
            probe(i)
    return {"first_d_loss": trainer.d_losses[0], "last_d_loss": trainer.d_losses[-1],
            "last_g_loss": trainer.g_losses[-1],
            "mean_grad_norm": float(sum(float(v) for v in trainer.grad_norm_history) / len(trainer.grad_norm_history))}


if __name__ == "__main__":
    print(run(make_batches(5)))
