# Source: https://github.com/KovenYu/uORF/issues/5
# Shape: The lazy R1 penalty is computed from torch.autograd.grad(..., create_graph=True) and backwarded (fine), but the per-sample gradient norms derived from that create_graph result are appended to a monitor list without detach, so every R1 step keeps the input-gradient tensor and the norm graph built on it.
# Verdict: leak
import io
from itertools import chain

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd


class Options:
    isTrain = True
    lr = 3e-4
    d_lr = 1e-3
    weight_gan = 0.01
    weight_r1 = 10.0
    r1_every = 2           # lazy regularisation (the repo uses 32)
    supervision_size = 16
    z_dim = 16
    batch_size = 4


def make_batches(n_batches=6, opt=Options, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [{"img_data": torch.rand(opt.batch_size, 3, opt.supervision_size, opt.supervision_size, generator=g) * 2 - 1}
            for _ in range(n_batches)]


def d_logistic_loss(real_pred, fake_pred):
    real_loss = F.softplus(-real_pred)
    fake_loss = F.softplus(fake_pred)
    return real_loss.mean() + fake_loss.mean()


def d_r1_loss(real_pred, real_img):
    grad_real, = autograd.grad(outputs=real_pred.sum(), inputs=real_img, create_graph=True)
    grad_penalty = grad_real.pow(2).reshape(grad_real.shape[0], -1).sum(1).mean()
    return grad_penalty, grad_real


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def toggle_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


class Encoder(nn.Module):
    def __init__(self, z_dim):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU(),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, z_dim))

    def forward(self, x):
        return self.net(x)


class Decoder(nn.Module):
    def __init__(self, z_dim, size):
        super().__init__()
        self.size = size
        self.fc = nn.Linear(z_dim, 32 * (size // 4) ** 2)
        self.net = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 3, 4, 2, 1), nn.Tanh())

    def forward(self, z):
        return self.net(self.fc(z).view(z.size(0), 32, self.size // 4, self.size // 4))


class Discriminator(nn.Module):
    def __init__(self, ndf=16):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(3, ndf, 3, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(ndf, ndf * 2, 3, 2, 1),
                                 nn.LeakyReLU(0.2), nn.Flatten(), nn.LazyLinear(1))

    def forward(self, x):
        return self.net(x)


class BaseModel:
    def __init__(self, opt):
        self.opt = opt
        self.isTrain = opt.isTrain
        self.loss_names, self.model_names = [], []

    def get_current_losses(self):
        return {name: float(getattr(self, "loss_" + name)) for name in self.loss_names}

    def save_networks(self):
        buf = io.BytesIO()
        torch.save({name: getattr(self, "net" + name).state_dict() for name in self.model_names}, buf)
        return len(buf.getvalue())


class uorfGanModel(BaseModel):
    def __init__(self, opt):
        BaseModel.__init__(self, opt)
        self.loss_names = ["recon", "gan", "d_real", "d_fake", "r1"]
        self.loss_recon = self.loss_gan = self.loss_d_real = self.loss_d_fake = self.loss_r1 = 0
        self.model_names = ["Encoder", "Decoder", "Disc"]
        self.netEncoder = Encoder(opt.z_dim)
        self.netDecoder = Decoder(opt.z_dim, opt.supervision_size)
        self.netDisc = Discriminator()
        self.netDisc(torch.zeros(1, 3, opt.supervision_size, opt.supervision_size))  # materialise LazyLinear
        self.optimizer = torch.optim.Adam(chain(self.netEncoder.parameters(), self.netDecoder.parameters()), lr=opt.lr)
        self.d_optimizer = torch.optim.Adam(self.netDisc.parameters(), lr=opt.d_lr, betas=(0., 0.9))
        self.r1_grad_norms = []

    def set_input(self, input):
        self.x = input["img_data"]

    def forward(self):
        self.x_recon = self.netDecoder(self.netEncoder(self.x))
        toggle_grad(self.netDisc, False)
        self.loss_gan = self.opt.weight_gan * g_nonsaturating_loss(self.netDisc(self.x_recon))
        self.loss_recon = F.mse_loss(self.x_recon, self.x)

    def backward(self):
        loss = self.loss_recon + self.loss_gan
        loss.backward()

    def forward_disc(self, it=0):
        toggle_grad(self.netDisc, True)
        fake_img = self.x_recon.detach()
        real_img = self.x
        d_loss_real, d_loss_fake = F.softplus(-self.netDisc(real_img)).mean(), F.softplus(self.netDisc(fake_img)).mean()
        d_loss = d_loss_real + d_loss_fake
        self.netDisc.zero_grad()
        d_loss.backward()
        self.d_optimizer.step()
        if it % self.opt.r1_every == 0:
            real_img = real_img.detach().requires_grad_(True)
            real_pred = self.netDisc(real_img)
            r1_loss, grad_real = d_r1_loss(real_pred, real_img)
            self.netDisc.zero_grad()
            (self.opt.weight_r1 * r1_loss).backward()
            self.d_optimizer.step()
            self.loss_r1 = r1_loss.item()
            self.r1_grad_norms.append(grad_real.flatten(1).norm(dim=1))  # TLK301
        toggle_grad(self.netDisc, False)
        self.loss_d_real = d_loss_real.item()
        self.loss_d_fake = d_loss_fake.item()

    def optimize_parameters(self, it):
        self.forward()
        self.optimizer.zero_grad()
        self.backward()
        self.optimizer.step()
        self.forward_disc(it)


class Visualizer:
    def __init__(self):
        self.plot_data = {"X": [], "Y": [], "legend": None}

    def plot_current_losses(self, it, losses):
        if self.plot_data["legend"] is None:
            self.plot_data["legend"] = list(losses.keys())
        self.plot_data["X"].append(it)
        self.plot_data["Y"].append([losses[k] for k in self.plot_data["legend"]])


def run(steps):
    torch.manual_seed(0)
    opt = Options()
    dataset = make_batches(6, opt)
    model = uorfGanModel(opt)
    visualizer = Visualizer()
    for it in range(steps):
        model.set_input(dataset[it % len(dataset)])
        model.optimize_parameters(it)
        visualizer.plot_current_losses(it, model.get_current_losses())
    model.save_networks()
    return {"model": model, "visualizer": visualizer}


if __name__ == "__main__":
    run(10)
