# Source: https://github.com/jalola/improved-wgan-pytorch/blob/0664fc9151defb2df91a504fdb84dd2820251fac/gan_train.py
# Shape: WGAN-GP critic step: the create_graph=True input gradient is reduced into gradient_penalty and backwarded with disc_cost in the same iteration; w_dist/disc_cost are only rebound each iteration (one graph at a time) and the logger receives .item() floats.
# Verdict: clean
import torch
from torch import nn
from torch import autograd

DIM = 8
BATCH_SIZE = 16
LAMBDA = 10
CRITIC_ITERS = 5
GENER_ITERS = 1
OUTPUT_DIM = 3 * 8 * 8


class GoodGenerator(nn.Module):
    def __init__(self, dim=DIM, output_dim=OUTPUT_DIM):
        super().__init__()
        self.ln1 = nn.Linear(32, 4 * 4 * 2 * dim)
        self.up = nn.Sequential(nn.BatchNorm2d(2 * dim), nn.ReLU(), nn.Upsample(scale_factor=2),
                                nn.Conv2d(2 * dim, dim, 3, padding=1), nn.BatchNorm2d(dim), nn.ReLU(),
                                nn.Conv2d(dim, 3, 3, padding=1))
        self.dim = dim

    def forward(self, input):
        output = self.ln1(input.contiguous()).view(-1, 2 * self.dim, 4, 4)
        return torch.tanh(self.up(output))


class GoodDiscriminator(nn.Module):
    def __init__(self, dim=DIM):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, dim, 3, padding=1), nn.LeakyReLU(0.2),
                                  nn.Conv2d(dim, 2 * dim, 3, stride=2, padding=1), nn.LeakyReLU(0.2))
        self.ln1 = nn.Linear(4 * 4 * 2 * dim, 1)

    def forward(self, input):
        output = self.body(input.contiguous())
        return self.ln1(output.view(output.size(0), -1)).view(-1)


class Plotter:
    """Mirror of libs.plot: keeps per-iteration scalars and flushes means."""

    def __init__(self):
        self.since_last_flush = {}

    def plot(self, name, value):
        self.since_last_flush.setdefault(name, []).append(value)

    def tick(self):
        pass


def calc_gradient_penalty(netD, real_data, fake_data):
    alpha = torch.rand(BATCH_SIZE, 1)
    alpha = alpha.expand(BATCH_SIZE, int(real_data.nelement() / BATCH_SIZE)).contiguous()
    alpha = alpha.view(BATCH_SIZE, 3, 8, 8)

    interpolates = alpha * real_data.detach() + ((1 - alpha) * fake_data.detach())
    interpolates.requires_grad_(True)

    disc_interpolates = netD(interpolates)

    gradients = autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                              grad_outputs=torch.ones(disc_interpolates.size()),
                              create_graph=True, retain_graph=True, only_inputs=True)[0]

    gradients = gradients.view(gradients.size(0), -1)
    gradient_penalty = ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA
    return gradient_penalty


def gen_rand_noise(g):
    return torch.randn(BATCH_SIZE, 32, generator=g)


class RealImages:
    def __init__(self, size=256):
        gen = torch.Generator().manual_seed(3)
        self.images = torch.rand(size, 3, 8, 8, generator=gen) * 2 - 1

    def batch(self, g):
        return self.images[torch.randint(len(self.images), (BATCH_SIZE,), generator=g)]


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    aG = GoodGenerator()
    aD = GoodDiscriminator()
    LR = 1e-4
    optimizer_g = torch.optim.Adam(aG.parameters(), lr=LR, betas=(0.0, 0.9))
    optimizer_d = torch.optim.Adam(aD.parameters(), lr=LR, betas=(0.0, 0.9))
    one = torch.FloatTensor([1])
    mone = one * -1
    data = RealImages()
    plotter = Plotter()

    for iteration, seed in enumerate(batches):
        g = torch.Generator().manual_seed(seed)
        # ---------------------TRAIN G------------------------
        for p in aD.parameters():
            p.requires_grad = False  # freeze D

        gen_cost = None
        for i in range(GENER_ITERS):
            aG.zero_grad()
            noise = gen_rand_noise(g)
            noise.requires_grad_(True)
            fake_data = aG(noise)
            gen_cost = aD(fake_data)
            gen_cost = gen_cost.mean()
            gen_cost.backward(mone.squeeze())
            gen_cost = -gen_cost
        optimizer_g.step()

        # ---------------------TRAIN D------------------------
        for p in aD.parameters():  # reset requires_grad
            p.requires_grad = True
        for i in range(CRITIC_ITERS):
            aD.zero_grad()
            noise = gen_rand_noise(g)
            with torch.no_grad():
                fake_data = aG(noise)
            real_data = data.batch(g).requires_grad_(True)

            disc_real = aD(real_data).mean()
            disc_fake = aD(fake_data).mean()
            gradient_penalty = calc_gradient_penalty(aD, real_data, fake_data)

            disc_cost = disc_fake - disc_real + gradient_penalty
            disc_cost.backward()
            w_dist = disc_fake - disc_real
            optimizer_d.step()
            if i == CRITIC_ITERS - 1:
                plotter.plot('data/gradient_pen', gradient_penalty.item())

        plotter.plot('train_disc_cost', disc_cost.item())
        plotter.plot('train_gen_cost', gen_cost.item())
        plotter.plot('wasserstein_distance', w_dist.item())
        plotter.tick()
    return plotter.since_last_flush
