# Source: https://github.com/rosinality/swapping-autoencoder-pytorch/issues/12
# Shape: swapping-autoencoder trainer backwards the reconstruction loss with retain_graph=True, then calls a helper method that builds a co-occurrence loss on the same encoder outputs and backwards it; the retained graph is used by the helper's backward
# Verdict: clean
import torch
import torch.nn.functional as F


class SwapTrainer:
    def __init__(self, encoder, generator, cooccur, optimizer):
        self.encoder, self.generator, self.cooccur = encoder, generator, cooccur
        self.optimizer = optimizer

    def cooccurrence_backward(self, texture, image, weight=1.0):
        patches = image.unfold(2, 32, 32).unfold(3, 32, 32).flatten(2, 3).transpose(1, 2)
        score = self.cooccur(patches, texture)
        (weight * F.softplus(-score).mean()).backward()

    def step(self, img1, img2):
        self.optimizer.zero_grad()
        structure, texture1 = self.encoder(img1)
        _, texture2 = self.encoder(img2)
        recon = self.generator(structure, texture1)
        swapped = self.generator(structure, texture2)
        rec_loss = F.l1_loss(recon, img1)
        rec_loss.backward(retain_graph=True)
        self.cooccurrence_backward(texture2, swapped)
        self.optimizer.step()


trainer = SwapTrainer(encoder, generator, cooccur_disc, g_optim)
for img1, img2 in pair_loader:
    trainer.step(img1, img2)
