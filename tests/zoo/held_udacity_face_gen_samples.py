# Source: https://github.com/udacity/deep-learning-v2-pytorch/pull/106
# Shape: The DCGAN face-generation train() records (d_loss.item(), g_loss.item()) correctly, but at the end of every epoch it generates the fixed-z samples with grad enabled and appends the attached generator output to `samples`, so each epoch's generator graph (conv-transpose and batch-norm saved activations) is kept until training ends -- memory rising at every epoch boundary as the PR reports. Fix from the PR: generate under torch.no_grad() and keep samples_z.detach().cpu().
# Verdict: leak
"""Udacity DLND face-generation project, DCGAN train() with per-epoch sample keeping,
scaled down to 16x16 synthetic 'faces'."""
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


def scale(x, feature_range=(-1, 1)):
    """Scale takes in an image x and returns that image, scaled with a feature_range of pixel values."""
    lo, hi = feature_range
    return x * (hi - lo) + lo


def conv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = [nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


def deconv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = [nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)]
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):
    def __init__(self, conv_dim):
        super(Discriminator, self).__init__()
        self.conv_dim = conv_dim
        self.conv1 = conv(3, conv_dim, 4, batch_norm=False)   # 8x8
        self.conv2 = conv(conv_dim, conv_dim * 2, 4)          # 4x4
        self.fc = nn.Linear(conv_dim * 2 * 4 * 4, 1)

    def forward(self, x):
        out = F.leaky_relu(self.conv1(x), 0.2)
        out = F.leaky_relu(self.conv2(out), 0.2)
        return self.fc(out.view(-1, self.conv_dim * 2 * 4 * 4))


class Generator(nn.Module):
    def __init__(self, z_size, conv_dim):
        super(Generator, self).__init__()
        self.conv_dim = conv_dim
        self.fc = nn.Linear(z_size, conv_dim * 2 * 4 * 4)
        self.t_conv1 = deconv(conv_dim * 2, conv_dim, 4)                 # 8x8
        self.t_conv2 = deconv(conv_dim, 3, 4, batch_norm=False)          # 16x16

    def forward(self, x):
        out = self.fc(x).view(-1, self.conv_dim * 2, 4, 4)
        out = F.relu(self.t_conv1(out))
        return torch.tanh(self.t_conv2(out))


def weights_init_normal(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1 or classname.find("Linear") != -1:
        m.weight.data.normal_(0.0, 0.02)


def real_loss(D_out, smooth=False):
    labels = torch.ones(D_out.size(0)) * (0.9 if smooth else 1.0)
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), labels)


def fake_loss(D_out):
    return nn.BCEWithLogitsLoss()(D_out.squeeze(), torch.zeros(D_out.size(0)))


def make_batches(n_batches=2, batch_size=16, seed=0):
    gen = torch.Generator().manual_seed(seed)
    return [(torch.rand(batch_size, 3, 16, 16, generator=gen), torch.zeros(batch_size)) for _ in range(n_batches)]


def train(D, G, d_optimizer, g_optimizer, celeba_train_loader, n_epochs, z_size, print_every=50):
    samples = []
    losses = []
    sample_size = 16
    fixed_z = np.random.uniform(-1, 1, size=(sample_size, z_size))
    fixed_z = torch.from_numpy(fixed_z).float()

    for epoch in range(n_epochs):
        for batch_i, (real_images, _) in enumerate(celeba_train_loader):
            batch_size = real_images.size(0)
            real_images = scale(real_images)

            # 1. Train the discriminator on real and fake images
            d_optimizer.zero_grad()
            d_real_loss = real_loss(D(real_images), smooth=True)
            z = torch.from_numpy(np.random.uniform(-1, 1, size=(batch_size, z_size))).float()
            fake_images = G(z)
            d_fake_loss = fake_loss(D(fake_images.detach()))
            d_loss = d_real_loss + d_fake_loss
            d_loss.backward()
            d_optimizer.step()

            # 2. Train the generator with an adversarial loss
            g_optimizer.zero_grad()
            g_loss = real_loss(D(fake_images))
            g_loss.backward()
            g_optimizer.step()

            if batch_i % print_every == 0:
                losses.append((d_loss.item(), g_loss.item()))

        ## AFTER EACH EPOCH##
        # generate and save sample, fake images
        G.eval()  # for generating samples
        samples_z = G(fixed_z)
        samples.append(samples_z)  # TLK102
        G.train()  # back to training mode

    return losses, samples


def run(steps):
    torch.manual_seed(0)
    np.random.seed(0)
    z_size = 32
    D, G = Discriminator(16), Generator(z_size=z_size, conv_dim=16)
    D.apply(weights_init_normal)
    G.apply(weights_init_normal)
    d_optimizer = optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
    g_optimizer = optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
    losses, samples = train(D, G, d_optimizer, g_optimizer, make_batches(), n_epochs=steps, z_size=z_size)
    return losses, samples


if __name__ == "__main__":
    run(10)
