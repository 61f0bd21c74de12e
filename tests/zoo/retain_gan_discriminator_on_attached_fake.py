# Source: https://github.com/aladdinpersson/Machine-Learning-Collection/pull/155
# Shape: simple GAN whose discriminator loss is computed on the non-detached fake batch; retain_graph=True keeps the generator's graph for the generator loss, which is backwarded later in the same iteration (measured: without it the generator backward raises on iteration 1; with it 0 B/iter)
# Verdict: clean
import torch
import torch.nn as nn

z_dim, img_dim, batch_size = 64, 784, 32
disc = nn.Sequential(nn.Linear(img_dim, 128), nn.LeakyReLU(0.01), nn.Linear(128, 1), nn.Sigmoid())
gen = nn.Sequential(nn.Linear(z_dim, 256), nn.LeakyReLU(0.01), nn.Linear(256, img_dim), nn.Tanh())
opt_disc = torch.optim.Adam(disc.parameters(), lr=3e-4)
opt_gen = torch.optim.Adam(gen.parameters(), lr=3e-4)
criterion = nn.BCELoss()

for epoch in range(50):
    for real, _ in loader:
        real = real.view(-1, img_dim)
        noise = torch.randn(real.size(0), z_dim)
        fake = gen(noise)

        disc_real = disc(real).view(-1)
        disc_fake = disc(fake).view(-1)
        loss_disc = (criterion(disc_real, torch.ones_like(disc_real))
                     + criterion(disc_fake, torch.zeros_like(disc_fake))) / 2
        disc.zero_grad()
        loss_disc.backward(retain_graph=True)
        opt_disc.step()

        output = disc(fake).view(-1)
        loss_gen = criterion(output, torch.ones_like(output))
        gen.zero_grad()
        loss_gen.backward()
        opt_gen.step()
