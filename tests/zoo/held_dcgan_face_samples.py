# Source: https://github.com/udacity/deep-learning-v2-pytorch/pull/106
# Shape: At the end of every epoch train() runs G(fixed_z) with G.eval() but without no_grad and appends the result to `samples`, so each epoch's generated batch keeps its whole generator graph (all intermediate activations) alive in the list that train() returns.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

train_on_gpu = torch.cuda.is_available()


def scale(x, feature_range=(-1, 1)):
    ''' Scale takes in an image x and returns that image, scaled
       with a feature_range of pixel values from -1 to 1.
       This function assumes that the input x is already scaled from 0-1.'''
    lo, hi = feature_range
    return x * (hi - lo) + lo


# helper conv function
def conv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = []
    conv_layer = nn.Conv2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)
    layers.append(conv_layer)
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


def deconv(in_channels, out_channels, kernel_size, stride=2, padding=1, batch_norm=True):
    layers = []
    transpose_conv_layer = nn.ConvTranspose2d(in_channels, out_channels, kernel_size, stride, padding, bias=False)
    layers.append(transpose_conv_layer)
    if batch_norm:
        layers.append(nn.BatchNorm2d(out_channels))
    return nn.Sequential(*layers)


class Discriminator(nn.Module):

    def __init__(self, conv_dim=32):
        super(Discriminator, self).__init__()
        self.conv_dim = conv_dim
        self.conv1 = conv(3, conv_dim, 4, batch_norm=False)   # 16x16
        self.conv2 = conv(conv_dim, conv_dim * 2, 4)          # 8x8
        self.conv3 = conv(conv_dim * 2, conv_dim * 4, 4)      # 4x4
        self.fc = nn.Linear(conv_dim * 4 * 4 * 4, 1)

    def forward(self, x):
        out = F.leaky_relu(self.conv1(x), 0.2)
        out = F.leaky_relu(self.conv2(out), 0.2)
        out = F.leaky_relu(self.conv3(out), 0.2)
        out = out.view(-1, self.conv_dim * 4 * 4 * 4)
        return self.fc(out)


class Generator(nn.Module):

    def __init__(self, z_size=100, conv_dim=32):
        super(Generator, self).__init__()
        self.conv_dim = conv_dim
        self.fc = nn.Linear(z_size, conv_dim * 4 * 4 * 4)
        self.t_conv1 = deconv(conv_dim * 4, conv_dim * 2, 4)
        self.t_conv2 = deconv(conv_dim * 2, conv_dim, 4)
        self.t_conv3 = deconv(conv_dim, 3, 4, batch_norm=False)

    def forward(self, x):
        out = self.fc(x)
        out = out.view(-1, self.conv_dim * 4, 4, 4)
        out = F.relu(self.t_conv1(out))
        out = F.relu(self.t_conv2(out))
        out = self.t_conv3(out)
        return torch.tanh(out)


def weights_init_normal(m):
    classname = m.__class__.__name__
    if hasattr(m, 'weight') and (classname.find('Conv') != -1 or classname.find('Linear') != -1):
        m.weight.data.normal_(0.0, 0.02)
        if hasattr(m, 'bias') and m.bias is not None:
            m.bias.data.fill_(0)


def real_loss(D_out, smooth=False):
    batch_size = D_out.size(0)
    labels = torch.ones(batch_size) * (0.9 if smooth else 1.0)
    criterion = nn.BCEWithLogitsLoss()
    return criterion(D_out.squeeze(), labels)


def fake_loss(D_out):
    batch_size = D_out.size(0)
    labels = torch.zeros(batch_size)
    criterion = nn.BCEWithLogitsLoss()
    return criterion(D_out.squeeze(), labels)


def make_batches(steps, batch_size=32, batches_per_epoch=2, seed=0):
    """`steps` epochs of a tiny 32x32 'celeba' loader (images in [0, 1])."""
    g = torch.Generator().manual_seed(seed)
    base = torch.rand(8, 3, 32, 32, generator=g)
    epochs = []
    for _ in range(steps):
        loader = []
        for _ in range(batches_per_epoch):
            idx = torch.randint(0, 8, (batch_size,), generator=g)
            imgs = (base[idx] + 0.1 * torch.randn(batch_size, 3, 32, 32, generator=g)).clamp(0, 1)
            loader.append((imgs, torch.zeros(batch_size)))
        epochs.append(loader)
    return epochs


def train(D, G, d_optimizer, g_optimizer, epochs, z_size=100, print_every=50):
    '''Trains adversarial networks for some number of epochs
       return: D and G losses'''

    # keep track of loss and generated, "fake" samples
    samples = []
    losses = []

    # Get some fixed data for sampling. These are images that are held
    # constant throughout training, and allow us to inspect the model's performance
    sample_size = 16
    fixed_z = torch.empty(sample_size, z_size).uniform_(-1, 1)

    # epoch training loop
    for epoch, train_loader in enumerate(epochs):

        # batch training loop
        for batch_i, (real_images, _) in enumerate(train_loader):

            batch_size = real_images.size(0)
            real_images = scale(real_images)

            # 1. Train the discriminator on real and fake images
            d_optimizer.zero_grad()
            D_real = D(real_images)
            d_real_loss = real_loss(D_real, smooth=True)

            z = torch.empty(batch_size, z_size).uniform_(-1, 1)
            fake_images = G(z)
            D_fake = D(fake_images.detach())
            d_fake_loss = fake_loss(D_fake)

            d_loss = d_real_loss + d_fake_loss
            d_loss.backward()
            d_optimizer.step()

            # 2. Train the generator with an adversarial loss
            g_optimizer.zero_grad()
            z = torch.empty(batch_size, z_size).uniform_(-1, 1)
            fake_images = G(z)
            D_fake = D(fake_images)
            g_loss = real_loss(D_fake)  # use real loss to flip labels
            g_loss.backward()
            g_optimizer.step()

            # Print some loss stats
            if batch_i % print_every == 0:
                # append discriminator loss and generator loss
                losses.append((d_loss.item(), g_loss.item()))
                if __name__ == "__main__":
                    print('Epoch [{:5d}/{:5d}] | d_loss: {:6.4f} | g_loss: {:6.4f}'.format(
                        epoch + 1, len(epochs), d_loss.item(), g_loss.item()))

        ## AFTER EACH EPOCH##
        # generate and save sample, fake images
        G.eval()  # for generating samples
        samples_z = G(fixed_z)
        samples.append(samples_z)  # TLK102
        G.train()  # back to training mode

    # finally return losses
    return losses, samples


def run(steps):
    torch.manual_seed(0)
    d_conv_dim, g_conv_dim, z_size = 32, 32, 100
    D = Discriminator(d_conv_dim)
    G = Generator(z_size=z_size, conv_dim=g_conv_dim)
    D.apply(weights_init_normal)
    G.apply(weights_init_normal)

    lr, beta1, beta2 = 0.0002, 0.5, 0.999
    d_optimizer = optim.Adam(D.parameters(), lr, [beta1, beta2])
    g_optimizer = optim.Adam(G.parameters(), lr, [beta1, beta2])

    losses, samples = train(D, G, d_optimizer, g_optimizer, make_batches(steps), z_size=z_size)
    return G, losses, samples


if __name__ == "__main__":
    run(10)
