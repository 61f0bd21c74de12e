import math

import torch
from torch import optim

from models import BaseVAE
from models.base import Tensor
from utils import grad_norm


class VAEXperiment(object):

    def __init__(self, vae_model: BaseVAE, params: dict, logger) -> None:
        self.model = vae_model
        self.params = params
        self.logger = logger
        self.curr_device = torch.device("cpu")
        self.hold_graph = False
        try:
            self.hold_graph = self.params['retain_first_backpass']
        except KeyError:
            pass
        self.global_step = 0
        self.latent_grads = []
        self.sample_cache = []

    def forward(self, input: Tensor, **kwargs):
        return self.model(input, **kwargs)

    def decoder_smoothness(self, z: Tensor, recons: Tensor) -> Tensor:
        """Random-projection estimate of ||J_dec(z)||_F^2, penalised to keep the decoder smooth."""
        v = torch.randn_like(recons)
        grad_z, = torch.autograd.grad((recons * v).sum(), z, create_graph=True)  # CLEAN: create_graph needed, the penalty is backwarded this step
        self.latent_grads.append(grad_z)  # expect: TLK301
        return grad_z.pow(2).sum(1).mean()

    def training_step(self, batch, batch_idx):
        real_img, labels = batch
        self.curr_device = real_img.device

        results = self.forward(real_img, labels=labels)
        train_loss = self.model.loss_function(*results,
                                              M_N=self.params['kld_weight'],
                                              batch_idx=batch_idx)
        self.logger.log_metrics(train_loss, step=self.global_step)

        jac = self.decoder_smoothness(results[4], results[0])
        total = train_loss['loss'] + self.params['jac_weight'] * jac
        return total

    def backward(self, loss, optimizer_idx=0):
        if self.hold_graph and optimizer_idx == 0:
            loss.backward(retain_graph=True)  # known-miss: TLK201 (VAEXperiment keeps create_graph gradients in self.latent_grads, so the loss computed by its training_step may reach an earlier graph: counted as a reuse)
        else:
            loss.backward()

    def optimizer_step(self, optimizer):
        gnorm = grad_norm(self.model.parameters())
        optimizer.step()
        optimizer.zero_grad()
        self.global_step += 1
        return gnorm

    def sample_images(self, n: int = 16):
        samples = self.model.sample(n, self.curr_device)
        self.sample_cache.append(samples)  # CLEAN: train.py only calls sample_images() under torch.no_grad()
        return samples

    def configure_optimizers(self):
        optimizer = optim.Adam(self.model.parameters(),
                               lr=self.params['LR'],
                               weight_decay=self.params['weight_decay'])
        scheduler = optim.lr_scheduler.ExponentialLR(optimizer, gamma=self.params['scheduler_gamma'])
        return optimizer, scheduler
