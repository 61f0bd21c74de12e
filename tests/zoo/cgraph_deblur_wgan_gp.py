# Source: https://github.com/KupynOrest/DeblurGAN/issues/15
# Shape: looks like create_graph gradients and retain_graph=True kept around, but the gradient penalty is part of loss_D and backwarded in the same step, retain_graph=True on the content term is needed by the adversarial backward that follows through the same fake_B generator graph, and only .item() values are kept in the error dict.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class DiscLossWGANGP:
    def __init__(self, lambda_gp=10.0):
        self.lambda_gp = lambda_gp

    def calc_gradient_penalty(self, netD, real_data, fake_data):
        alpha = torch.rand(real_data.size(0), 1, 1, 1).expand_as(real_data)
        interpolates = (alpha * real_data + (1 - alpha) * fake_data).requires_grad_(True)
        disc_interpolates = netD(interpolates)
        gradients = torch.autograd.grad(outputs=disc_interpolates, inputs=interpolates,
                                        grad_outputs=torch.ones_like(disc_interpolates),
                                        create_graph=True, retain_graph=True, only_inputs=True)[0]
        return ((gradients.reshape(gradients.size(0), -1).norm(2, dim=1) - 1) ** 2).mean() * self.lambda_gp

    def get_loss(self, netD, real_A, fake_B, real_B):
        loss_D_fake = netD(fake_B.detach()).mean()
        loss_D_real = netD(real_B).mean()
        loss_D = loss_D_fake - loss_D_real
        gradient_penalty = self.calc_gradient_penalty(netD, real_B, fake_B.detach())
        return loss_D + gradient_penalty, gradient_penalty


class ResnetGenerator(nn.Module):
    def __init__(self, ngf=16):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, ngf, 3, padding=1), nn.InstanceNorm2d(ngf), nn.ReLU(True),
            nn.Conv2d(ngf, 3, 3, padding=1), nn.Tanh(),
        )

    def forward(self, x):
        return torch.clamp(x + self.model(x), -1, 1)


class NLayerDiscriminator(nn.Module):
    def __init__(self, ndf=16):
        super().__init__()
        self.model = nn.Sequential(
            nn.Conv2d(3, ndf, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(ndf, 2 * ndf, 4, stride=2, padding=1), nn.LeakyReLU(0.2, True),
            nn.Conv2d(2 * ndf, 1, 3, padding=1),
        )

    def forward(self, x):
        return self.model(x)


class ConditionalGAN:
    def __init__(self, lr=1e-4, lambda_A=100.0, critic_updates=2):
        self.netG = ResnetGenerator()
        self.netD = NLayerDiscriminator()
        self.discLoss = DiscLossWGANGP()
        self.lambda_A = lambda_A
        self.critic_updates = critic_updates
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=lr, betas=(0.5, 0.999))

    def set_input(self, input):
        self.real_A, self.real_B = input

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        self.loss_D, self.gradient_penalty = self.discLoss.get_loss(self.netD, self.real_A, self.fake_B, self.real_B)
        self.loss_D.backward()

    def backward_G(self):
        self.loss_G_Content = F.l1_loss(self.fake_B, self.real_B) * self.lambda_A
        self.loss_G_Content.backward(retain_graph=True)
        self.loss_G_GAN = -self.netD(self.fake_B).mean()
        self.loss_G_GAN.backward()

    def optimize_parameters(self):
        self.forward()
        for _ in range(self.critic_updates):
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()

    def get_current_errors(self):
        return {"G_GAN": self.loss_G_GAN.item(), "G_L1": self.loss_G_Content.item(),
                "D_real+fake": self.loss_D.item(), "GP": self.gradient_penalty.item()}


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        sharp = torch.rand(4, 3, 24, 24, generator=g) * 2 - 1
        blurred = F.avg_pool2d(sharp, 3, stride=1, padding=1)
        batches.append((blurred, sharp))
    return batches


def run(batches):
    torch.manual_seed(0)
    model = ConditionalGAN()
    errors_history = []
    for data in batches:
        model.set_input(data)
        model.optimize_parameters()
        errors_history.append(model.get_current_errors())
    return errors_history[-1]["G_L1"] + errors_history[-1]["GP"]


if __name__ == "__main__":
    print(run(make_batches(5)))
