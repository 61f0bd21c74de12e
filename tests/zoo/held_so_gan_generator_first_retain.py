# Source: https://whosebug.com/question/5232549/How-does-PyTorch-s-loss-backward-work-when-retain-graph-True-is-specified
# Shape: loss_g and loss_d are built from one non-detached D(G(z)) pass, so loss_g.backward(retain_graph=True) is used to let loss_d backprop through the same graph (and into G); the per-step loss_g / loss_d tensors are appended to the plotting lists, so every step's generator+discriminator graph stays alive.
# Verdict: leak
import torch
import torch.nn as nn

LATENT = 16
DATA_DIM = 32
BATCH = 256

# global lists the notebook plots at the end
G_losses = []
D_losses = []


def make_batches(n_batches, seed=0):
    torch.manual_seed(seed)
    mix = torch.randn(4, DATA_DIM) * 3
    out = []
    for _ in range(n_batches):
        idx = torch.randint(0, 4, (BATCH,))
        out.append(mix[idx] + 0.3 * torch.randn(BATCH, DATA_DIM))
    return out


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(LATENT, 64), nn.ReLU(),
                                 nn.Linear(64, 64), nn.ReLU(),
                                 nn.Linear(64, DATA_DIM))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DATA_DIM, 64), nn.LeakyReLU(0.2),
                                 nn.Linear(64, 1), nn.Sigmoid())

    def forward(self, x):
        return self.net(x).view(-1)


def run(steps):
    torch.manual_seed(0)
    del G_losses[:], D_losses[:]
    netG, netD = Generator(), Discriminator()
    optim_g = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
    optim_d = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
    criterion = nn.BCELoss()
    fixed_noise = torch.randn(8, LATENT)
    img_list = []

    for i, real in enumerate(make_batches(steps)):
        ones = torch.ones(real.size(0))
        zeros = torch.zeros(real.size(0))
        z = torch.randn(real.size(0), LATENT)
        fake = netG(z)
        d_fake = netD(fake)
        d_real = netD(real)

        # computing loss_g and loss_d...
        loss_g = criterion(d_fake, ones)
        loss_d = criterion(d_real, ones) + criterion(d_fake, zeros)

        optim_g.zero_grad()
        loss_g.backward(retain_graph=True)
        optim_d.zero_grad()
        loss_d.backward()
        optim_g.step()
        optim_d.step()

        G_losses.append(loss_g)  # TLK102
        D_losses.append(loss_d)  # TLK102

        if i % 10 == 0:
            with torch.no_grad():
                img_list.append(netG(fixed_noise).detach().cpu())
            print("[%d] Loss_D: %.4f Loss_G: %.4f" % (i, loss_d.item(), loss_g.item()))

    return {"G": netG, "D": netD, "G_losses": G_losses, "D_losses": D_losses, "img_list": img_list}


if __name__ == "__main__":
    run(10)
