# Source: https://github.com/eriklindernoren/PyTorch-GAN/issues/71
# Shape: as suggested in the issue, the fakes are detached before they are pushed into the history buffer (which now iterates over the tensor itself), so the buffer only ever holds graph-free images.
# Verdict: clean
import itertools
import random

import torch
import torch.nn as nn

DIM = 64
BATCH = 4


class ReplayBuffer:
    def __init__(self, max_size=16):
        assert max_size > 0, "Empty buffer or trying to create a black hole. Be careful."
        self.max_size = max_size
        self.data = []

    def push_and_pop(self, data):
        to_return = []
        for element in data:
            element = torch.unsqueeze(element, 0)
            if len(self.data) < self.max_size:
                self.data.append(element)
                to_return.append(element)
            else:
                if random.uniform(0, 1) > 0.5:
                    i = random.randint(0, self.max_size - 1)
                    to_return.append(self.data[i].clone())
                    self.data[i] = element
                else:
                    to_return.append(element)
        return torch.cat(to_return)


def mlp(out_act=None):
    layers = [nn.Linear(DIM, 128), nn.LeakyReLU(0.2), nn.Linear(128, 128), nn.LeakyReLU(0.2), nn.Linear(128, DIM)]
    if out_act is not None:
        layers.append(out_act)
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1))

    def forward(self, x):
        return self.net(x)


def make_batches(n):
    g = torch.Generator().manual_seed(23)
    shift = torch.randn(DIM, generator=g)
    out = []
    for _ in range(n):
        real_A = torch.tanh(torch.randn(BATCH, DIM, generator=g))
        real_B = torch.tanh(torch.randn(BATCH, DIM, generator=g) + shift)
        out.append((real_A, real_B))
    return out


def run(steps, lambda_cyc=10.0, lambda_id=5.0):
    random.seed(0)
    torch.manual_seed(0)
    G_AB, G_BA = mlp(nn.Tanh()), mlp(nn.Tanh())
    D_A, D_B = Discriminator(), Discriminator()
    criterion_GAN, criterion_cycle, criterion_identity = nn.MSELoss(), nn.L1Loss(), nn.L1Loss()
    optimizer_G = torch.optim.Adam(itertools.chain(G_AB.parameters(), G_BA.parameters()), lr=2e-4, betas=(0.5, 0.999))
    optimizer_D_A = torch.optim.Adam(D_A.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optimizer_D_B = torch.optim.Adam(D_B.parameters(), lr=2e-4, betas=(0.5, 0.999))
    fake_A_buffer, fake_B_buffer = ReplayBuffer(), ReplayBuffer()
    log = []
    for real_A, real_B in make_batches(steps):
        valid = torch.ones(real_A.size(0), 1)
        fake = torch.zeros(real_A.size(0), 1)

        # generators
        optimizer_G.zero_grad()
        loss_identity = (criterion_identity(G_BA(real_A), real_A) + criterion_identity(G_AB(real_B), real_B)) / 2
        fake_B = G_AB(real_A)
        fake_A = G_BA(real_B)
        loss_GAN = (criterion_GAN(D_B(fake_B), valid) + criterion_GAN(D_A(fake_A), valid)) / 2
        loss_cycle = (criterion_cycle(G_BA(fake_B), real_A) + criterion_cycle(G_AB(fake_A), real_B)) / 2
        loss_G = loss_GAN + lambda_cyc * loss_cycle + lambda_id * loss_identity
        loss_G.backward()
        optimizer_G.step()

        # discriminator A
        optimizer_D_A.zero_grad()
        loss_real = criterion_GAN(D_A(real_A), valid)
        fake_A_ = fake_A_buffer.push_and_pop(fake_A.detach())
        loss_fake = criterion_GAN(D_A(fake_A_), fake)
        loss_D_A = (loss_real + loss_fake) / 2
        loss_D_A.backward()
        optimizer_D_A.step()

        # discriminator B
        optimizer_D_B.zero_grad()
        loss_real = criterion_GAN(D_B(real_B), valid)
        fake_B_ = fake_B_buffer.push_and_pop(fake_B.detach())
        loss_fake = criterion_GAN(D_B(fake_B_), fake)
        loss_D_B = (loss_real + loss_fake) / 2
        loss_D_B.backward()
        optimizer_D_B.step()

        log.append((loss_G.item(), loss_D_A.item(), loss_D_B.item()))
    return (G_AB, G_BA, D_A, D_B), (fake_A_buffer, fake_B_buffer), log


if __name__ == "__main__":
    print(run(10)[-1][-1])
