# Source: https://github.com/VITA-Group/DeblurGANv2/issues/19
# Shape: a deblurring GAN trainer backwards the discriminator loss with retain_graph=True because the generator loss built right after it (in another method) backwards through the same generated image; the second backward frees the graph, so the retained graph does not outlive the iteration.
# Verdict: clean
import torch
import torch.nn.functional as F


class DeblurTrainer:
    def __init__(self, netG, netD, perceptual, opt_G, opt_D, adv_lambda=0.001):
        self.netG = netG
        self.netD = netD
        self.perceptual = perceptual
        self.opt_G = opt_G
        self.opt_D = opt_D
        self.adv_lambda = adv_lambda

    def loss_d(self, fake, real):
        d_fake = self.netD(fake)
        d_real = self.netD(real)
        return ((d_real - d_fake.mean() - 1) ** 2).mean() / 2 + ((d_fake - d_real.mean() + 1) ** 2).mean() / 2

    def loss_g(self, fake, real):
        d_fake = self.netD(fake)
        d_real = self.netD(real)
        return ((d_real - d_fake.mean() + 1) ** 2).mean() / 2 + ((d_fake - d_real.mean() - 1) ** 2).mean() / 2

    def _run_epoch(self, loader, epoch):
        self.netG.train()
        running = 0.0
        for i, (blurred, sharp) in enumerate(loader):
            outputs = self.netG(blurred)
            self.opt_D.zero_grad()
            loss_D = self.adv_lambda * self.loss_d(outputs, sharp)
            loss_D.backward(retain_graph=True)
            self.opt_D.step()

            self.opt_G.zero_grad()
            loss_content = F.mse_loss(outputs, sharp) + 0.006 * self.perceptual(outputs, sharp)
            loss_G = loss_content + self.adv_lambda * self.loss_g(outputs, sharp)
            loss_G.backward()
            self.opt_G.step()
            running += loss_G.item()
        print(f"epoch {epoch}: G {running / (i + 1):.4f}")
