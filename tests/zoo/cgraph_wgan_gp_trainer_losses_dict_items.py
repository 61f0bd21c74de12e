# Source: https://github.com/EmilienDupont/wgan-gp/blob/50361ca47d260f9585f557b84c136c2e417030d1/training.py
# Shape: the WGAN-GP Trainer class with its losses dict of lists, ported to current PyTorch with .item() wherever the original read .data[0]; the gradient penalty built with autograd.grad(create_graph=True) in _gradient_penalty is backwarded inside the critic loss, and only floats reach the lists.
# Verdict: clean
import torch
import torch.nn as nn
from torch.autograd import grad as torch_grad


class Trainer:
    def __init__(self, generator: nn.Module, discriminator: nn.Module, gen_optimizer, dis_optimizer,
                 gp_weight=10, critic_iterations=5, print_every=50, device="cuda"):
        self.G, self.G_opt = generator.to(device), gen_optimizer
        self.D, self.D_opt = discriminator.to(device), dis_optimizer
        self.losses = {"G": [], "D": [], "GP": [], "gradient_norm": []}
        self.num_steps = 0
        self.device = device
        self.gp_weight = gp_weight
        self.critic_iterations = critic_iterations
        self.print_every = print_every

    def sample_generator(self, num_samples):
        return self.G(self.G.sample_latent(num_samples).to(self.device))

    def _critic_train_iteration(self, data):
        generated_data = self.sample_generator(data.size(0))
        data = data.to(self.device)
        d_real = self.D(data)
        d_generated = self.D(generated_data)
        gradient_penalty = self._gradient_penalty(data, generated_data)
        self.losses["GP"].append(gradient_penalty.item())
        self.D_opt.zero_grad()
        d_loss = d_generated.mean() - d_real.mean() + gradient_penalty
        d_loss.backward()
        self.D_opt.step()
        self.losses["D"].append(d_loss.item())

    def _generator_train_iteration(self, data):
        self.G_opt.zero_grad()
        g_loss = -self.D(self.sample_generator(data.size(0))).mean()
        g_loss.backward()
        self.G_opt.step()
        self.losses["G"].append(g_loss.item())

    def _gradient_penalty(self, real_data, generated_data):
        batch_size = real_data.size(0)
        alpha = torch.rand(batch_size, 1, 1, 1, device=self.device).expand_as(real_data)
        interpolated = (alpha * real_data.detach() + (1 - alpha) * generated_data.detach()).requires_grad_(True)
        prob_interpolated = self.D(interpolated)
        gradients = torch_grad(outputs=prob_interpolated, inputs=interpolated,
                               grad_outputs=torch.ones_like(prob_interpolated),
                               create_graph=True, retain_graph=True)[0]
        gradients = gradients.view(batch_size, -1)
        self.losses["gradient_norm"].append(gradients.norm(2, dim=1).mean().item())
        gradients_norm = torch.sqrt(torch.sum(gradients ** 2, dim=1) + 1e-12)
        return self.gp_weight * ((gradients_norm - 1) ** 2).mean()

    def _train_epoch(self, data_loader):
        for i, data in enumerate(data_loader):
            self.num_steps += 1
            self._critic_train_iteration(data[0])
            if self.num_steps % self.critic_iterations == 0:
                self._generator_train_iteration(data[0])
            if i % self.print_every == 0:
                print(f"Iteration {i + 1} D: {self.losses['D'][-1]:.4f} GP: {self.losses['GP'][-1]:.4f}")

    def train(self, data_loader, epochs):
        for epoch in range(epochs):
            self._train_epoch(data_loader)
