# Source: https://github.com/naver-ai/StyleMapGAN/issues/16
# Shape: the generator step of a style-map GAN gets the adversarial loss, the latent reconstruction loss and the style code from one wrapped forward; backwarding the two losses separately raised "backward through the graph a second time", so they are combined and backwarded once (no retain_graph), and the loss dict that the loop keeps is overwritten each step and read as floats.
# Verdict: clean
import torch
import torch.nn as nn


class StyleMapTrainModule(nn.Module):
    def __init__(self, encoder, generator, discriminator):
        super().__init__()
        self.encoder = encoder
        self.generator = generator
        self.discriminator = discriminator

    def forward(self, real_img, mode):
        if mode == "G":
            stylecode = self.encoder(real_img)
            fake_img = self.generator(stylecode)
            adv_loss = nn.functional.softplus(-self.discriminator(fake_img)).mean()
            w_rec_loss = nn.functional.mse_loss(self.encoder(fake_img), stylecode)
            return adv_loss, w_rec_loss, stylecode
        fake_img = self.generator(self.encoder(real_img)).detach()
        return nn.functional.softplus(self.discriminator(fake_img)).mean() + nn.functional.softplus(-self.discriminator(real_img)).mean()


def train(model, loader, g_optim, d_optim, lambda_adv=1.0, lambda_w_rec=1.0, iterations=100_000):
    loss_dict = {}
    data = iter(loader)
    for i in range(iterations):
        real_img = next(data)
        d_loss = model(real_img, "D")
        d_optim.zero_grad()
        d_loss.backward()
        d_optim.step()
        loss_dict["d"] = d_loss

        adv_loss, w_rec_loss, stylecode = model(real_img, "G")
        g_w_rec_loss = adv_loss.mean() * lambda_adv + w_rec_loss.mean() * lambda_w_rec
        g_optim.zero_grad()
        g_w_rec_loss.backward()
        g_optim.step()
        loss_dict["adv"] = adv_loss
        loss_dict["w_rec"] = w_rec_loss
        if i % 100 == 0:
            print({name: value.item() for name, value in loss_dict.items()})
