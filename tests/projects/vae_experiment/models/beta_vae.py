import torch
from torch import nn
from torch.nn import functional as F

from .base import BaseVAE, Tensor

__all__ = ["BetaVAE"]


class BetaVAE(BaseVAE):
    """Beta-VAE with the controlled-capacity objective (Burgess et al.), MLP encoder/decoder."""

    num_iter = 0  # Global static variable to keep track of iterations

    def __init__(self, in_channels: int, img_size: int, latent_dim: int, hidden_dims=None,
                 beta: int = 4, gamma: float = 100., max_capacity: int = 25,
                 Capacity_max_iter: int = 1e5, loss_type: str = 'B', **kwargs) -> None:
        super(BetaVAE, self).__init__()
        self.latent_dim = latent_dim
        self.in_dim = in_channels * img_size * img_size
        self.img_shape = (in_channels, img_size, img_size)
        self.beta = beta
        self.gamma = gamma
        self.loss_type = loss_type
        self.C_max = torch.Tensor([max_capacity])
        self.C_stop_iter = Capacity_max_iter
        self.kld_ema = 0.0

        if hidden_dims is None:
            hidden_dims = [128, 64]
        modules = []
        d = self.in_dim
        for h_dim in hidden_dims:
            modules.append(nn.Sequential(nn.Linear(d, h_dim), nn.LeakyReLU()))
            d = h_dim
        self.encoder = nn.Sequential(*modules)
        self.fc_mu = nn.Linear(d, latent_dim)
        self.fc_var = nn.Linear(d, latent_dim)

        modules = []
        d = latent_dim
        for h_dim in reversed(hidden_dims):
            modules.append(nn.Sequential(nn.Linear(d, h_dim), nn.LeakyReLU()))
            d = h_dim
        self.decoder = nn.Sequential(*modules)
        self.final_layer = nn.Linear(d, self.in_dim)

    def encode(self, input: Tensor):
        result = self.encoder(torch.flatten(input, start_dim=1))
        return [self.fc_mu(result), self.fc_var(result)]

    def decode(self, z: Tensor) -> Tensor:
        result = torch.sigmoid(self.final_layer(self.decoder(z)))
        return result.view(-1, *self.img_shape)

    def reparameterize(self, mu: Tensor, logvar: Tensor) -> Tensor:
        std = torch.exp(0.5 * logvar)
        eps = torch.randn_like(std)
        return eps * std + mu

    def forward(self, input: Tensor, **kwargs):
        mu, log_var = self.encode(input)
        z = self.reparameterize(mu, log_var)
        return [self.decode(z), input, mu, log_var, z]

    def loss_function(self, *args, **kwargs) -> dict:
        self.num_iter += 1
        recons = args[0]
        input = args[1]
        mu = args[2]
        log_var = args[3]
        kld_weight = kwargs['M_N']  # Account for the minibatch samples from the dataset

        recons_loss = F.mse_loss(recons, input)
        kld_loss = torch.mean(-0.5 * torch.sum(1 + log_var - mu ** 2 - log_var.exp(), dim=1), dim=0)
        # smoothed KL, used to freeze the capacity schedule once the code is saturated
        self.kld_ema = 0.98 * self.kld_ema + 0.02 * kld_loss  # expect: TLK103

        if self.loss_type == 'H':
            loss = recons_loss + self.beta * kld_weight * kld_loss
        elif self.loss_type == 'B':
            self.C_max = self.C_max.to(input.device)
            C = torch.clamp(self.C_max / self.C_stop_iter * self.num_iter, 0, self.C_max.data[0])
            if self.num_iter > 5 and self.kld_ema > C + 5.0:
                C = C + 5.0
            loss = recons_loss + self.gamma * kld_weight * (kld_loss - C).abs()
        else:
            raise ValueError('Undefined loss type.')

        return {'loss': loss, 'Reconstruction_Loss': recons_loss, 'KLD': kld_loss}

    def sample(self, num_samples: int, current_device, **kwargs) -> Tensor:
        z = torch.randn(num_samples, self.latent_dim)
        return self.decode(z.to(current_device))

    def generate(self, x: Tensor, **kwargs) -> Tensor:
        return self.forward(x)[0]
