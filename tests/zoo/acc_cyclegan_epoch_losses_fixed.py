# Source: https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/blob/master/models/cycle_gan_model.py
# Shape: the per-epoch sums take float(...) of each loss_* attribute (as get_current_losses does), so the sums are Python floats and each iteration's CycleGAN graphs are released when the model overwrites its loss attributes.
# Verdict: clean
import random
from collections import OrderedDict

import torch
import torch.nn as nn

IMG_DIM = 32


class ImagePool:
    """History of generated images (Shrivastava et al.), as in util/image_pool.py."""

    def __init__(self, pool_size):
        self.pool_size = pool_size
        if self.pool_size > 0:
            self.num_imgs = 0
            self.images = []

    def query(self, images):
        if self.pool_size == 0:
            return images
        return_images = []
        for image in images:
            image = torch.unsqueeze(image.data, 0)
            if self.num_imgs < self.pool_size:
                self.num_imgs = self.num_imgs + 1
                self.images.append(image)
                return_images.append(image)
            else:
                p = random.uniform(0, 1)
                if p > 0.5:
                    random_id = random.randint(0, self.pool_size - 1)
                    tmp = self.images[random_id].clone()
                    self.images[random_id] = image
                    return_images.append(tmp)
                else:
                    return_images.append(image)
        return torch.cat(return_images, 0)


class GANLoss(nn.Module):
    """LSGAN objective."""

    def __init__(self):
        super().__init__()
        self.loss = nn.MSELoss()

    def __call__(self, prediction, target_is_real):
        target = torch.ones_like(prediction) if target_is_real else torch.zeros_like(prediction)
        return self.loss(prediction, target)


def define_G():
    return nn.Sequential(nn.Linear(IMG_DIM, 64), nn.ReLU(), nn.Linear(64, IMG_DIM), nn.Tanh())


def define_D():
    return nn.Sequential(nn.Linear(IMG_DIM, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))


class CycleGANModel:
    def __init__(self, lambda_A=10.0, lambda_B=10.0, lambda_identity=0.5, pool_size=50, lr=2e-4):
        self.loss_names = ['D_A', 'G_A', 'cycle_A', 'idt_A', 'D_B', 'G_B', 'cycle_B', 'idt_B']
        self.lambda_A, self.lambda_B, self.lambda_identity = lambda_A, lambda_B, lambda_identity
        self.netG_A, self.netG_B = define_G(), define_G()
        self.netD_A, self.netD_B = define_D(), define_D()
        self.fake_A_pool = ImagePool(pool_size)
        self.fake_B_pool = ImagePool(pool_size)
        self.criterionGAN = GANLoss()
        self.criterionCycle = nn.L1Loss()
        self.criterionIdt = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(list(self.netG_A.parameters()) + list(self.netG_B.parameters()),
                                            lr=lr, betas=(0.5, 0.999))
        self.optimizer_D = torch.optim.Adam(list(self.netD_A.parameters()) + list(self.netD_B.parameters()),
                                            lr=lr, betas=(0.5, 0.999))

    def set_input(self, input):
        self.real_A = input['A']
        self.real_B = input['B']

    def forward(self):
        self.fake_B = self.netG_A(self.real_A)
        self.rec_A = self.netG_B(self.fake_B)
        self.fake_A = self.netG_B(self.real_B)
        self.rec_B = self.netG_A(self.fake_A)

    def backward_D_basic(self, netD, real, fake):
        pred_real = netD(real)
        loss_D_real = self.criterionGAN(pred_real, True)
        pred_fake = netD(fake.detach())
        loss_D_fake = self.criterionGAN(pred_fake, False)
        loss_D = (loss_D_real + loss_D_fake) * 0.5
        loss_D.backward()
        return loss_D

    def backward_D_A(self):
        fake_B = self.fake_B_pool.query(self.fake_B)
        self.loss_D_A = self.backward_D_basic(self.netD_A, self.real_B, fake_B)

    def backward_D_B(self):
        fake_A = self.fake_A_pool.query(self.fake_A)
        self.loss_D_B = self.backward_D_basic(self.netD_B, self.real_A, fake_A)

    def backward_G(self):
        lambda_idt = self.lambda_identity
        self.idt_A = self.netG_A(self.real_B)
        self.loss_idt_A = self.criterionIdt(self.idt_A, self.real_B) * self.lambda_B * lambda_idt
        self.idt_B = self.netG_B(self.real_A)
        self.loss_idt_B = self.criterionIdt(self.idt_B, self.real_A) * self.lambda_A * lambda_idt
        self.loss_G_A = self.criterionGAN(self.netD_A(self.fake_B), True)
        self.loss_G_B = self.criterionGAN(self.netD_B(self.fake_A), True)
        self.loss_cycle_A = self.criterionCycle(self.rec_A, self.real_A) * self.lambda_A
        self.loss_cycle_B = self.criterionCycle(self.rec_B, self.real_B) * self.lambda_B
        self.loss_G = (self.loss_G_A + self.loss_G_B + self.loss_cycle_A + self.loss_cycle_B
                       + self.loss_idt_A + self.loss_idt_B)
        self.loss_G.backward()

    @staticmethod
    def set_requires_grad(nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def optimize_parameters(self):
        self.forward()
        self.set_requires_grad([self.netD_A, self.netD_B], False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()
        self.set_requires_grad([self.netD_A, self.netD_B], True)
        self.optimizer_D.zero_grad()
        self.backward_D_A()
        self.backward_D_B()
        self.optimizer_D.step()

    def get_current_losses(self):
        errors_ret = OrderedDict()
        for name in self.loss_names:
            errors_ret[name] = float(getattr(self, 'loss_' + name))
        return errors_ret


def make_batches(n):
    g = torch.Generator().manual_seed(31)
    mix = torch.randn(IMG_DIM, IMG_DIM, generator=g) / IMG_DIM ** 0.5
    batches = []
    for _ in range(n):
        a = torch.tanh(torch.randn(4, IMG_DIM, generator=g))
        b = torch.tanh(torch.randn(4, IMG_DIM, generator=g) @ mix + 0.5)
        batches.append({'A': a, 'B': b})
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    random.seed(0)
    model = CycleGANModel()
    epoch_loss_sums = {name: 0.0 for name in model.loss_names}
    for i, data in enumerate(batches):
        model.set_input(data)
        model.optimize_parameters()
        for name in model.loss_names:
            epoch_loss_sums[name] += float(getattr(model, 'loss_' + name))
        if probe is not None:
            probe()
    epoch_means = {name: float(total) / len(batches) for name, total in epoch_loss_sums.items()}
    return {"G_A": epoch_means['G_A'], "D_A": epoch_means['D_A'], "cycle_A": epoch_means['cycle_A']}


if __name__ == "__main__":
    print(run(make_batches(5)))
