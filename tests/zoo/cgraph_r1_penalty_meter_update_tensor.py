# Source: https://github.com/NVlabs/stylegan2-ada-pytorch/blob/main/training/loss.py
# Shape: a GAN trainer applies lazy R1 regularization (autograd.grad of the real logits w.r.t. the real images with create_graph=True) every few steps and feeds the resulting penalty tensor to a running AverageMeter whose sum lives for the whole epoch.
# Verdict: leak
import torch
import torch.nn.functional as F
from torch import autograd


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def r1_penalty(real_logits, real_img):
    (r1_grads,) = autograd.grad(outputs=[real_logits.sum()], inputs=[real_img], create_graph=True, only_inputs=True)
    return r1_grads.square().sum(dim=[1, 2, 3])


class GANTrainer:
    def __init__(self, G, D, z_dim, r1_gamma=10.0, r1_interval=4, lr=2e-3):
        self.G, self.D, self.z_dim = G, D, z_dim
        self.r1_gamma, self.r1_interval = r1_gamma, r1_interval
        self.g_opt = torch.optim.Adam(G.parameters(), lr=lr, betas=(0.0, 0.99))
        self.d_opt = torch.optim.Adam(D.parameters(), lr=lr, betas=(0.0, 0.99))
        self.meters = {k: AverageMeter(k) for k in ("loss_G", "loss_D", "r1")}

    def train_epoch(self, loader):
        for m in self.meters.values():
            m.reset()
        for step, real_img in enumerate(loader):
            n = real_img.size(0)
            # discriminator main
            z = torch.randn(n, self.z_dim)
            fake_logits = self.D(self.G(z).detach())
            real_logits = self.D(real_img)
            loss_D = F.softplus(fake_logits).mean() + F.softplus(-real_logits).mean()
            self.d_opt.zero_grad(set_to_none=True)
            loss_D.backward()
            self.d_opt.step()
            # lazy R1
            if step % self.r1_interval == 0:
                real_tmp = real_img.detach().requires_grad_(True)
                real_logits = self.D(real_tmp)
                penalty = r1_penalty(real_logits, real_tmp)
                loss_r1 = (penalty * (self.r1_gamma / 2)).mean() * self.r1_interval
                self.d_opt.zero_grad(set_to_none=True)
                (real_logits * 0 + loss_r1).mean().backward()
                self.d_opt.step()
                self.meters["r1"].update(penalty.mean(), n)  # TLK301
            # generator
            z = torch.randn(n, self.z_dim)
            loss_G = F.softplus(-self.D(self.G(z))).mean()
            self.g_opt.zero_grad(set_to_none=True)
            loss_G.backward()
            self.g_opt.step()
            self.meters["loss_G"].update(loss_G.item(), n)
            self.meters["loss_D"].update(loss_D.item(), n)
        return {k: float(m.avg) for k, m in self.meters.items()}
