# Source: https://github.com/grey-eye/talking-heads/pull/7
# Shape: a few-shot talking-head trainer backwards the embedder+generator loss with retain_graph=True, then trains the discriminator on the generated frame detached and on the real frame; the discriminator loss never reaches the retained graph, so the whole generator graph is held through the discriminator step for nothing (the fix removed retain_graph).
# Verdict: leak
import torch
import torch.nn.functional as F


class ReenactmentTrainer:
    def __init__(self, embedder, generator, discriminator, perceptual, lr_eg=5e-5, lr_d=2e-4):
        self.E, self.G, self.D = embedder, generator, discriminator
        self.perceptual = perceptual
        self.opt_eg = torch.optim.Adam(list(embedder.parameters()) + list(generator.parameters()), lr=lr_eg)
        self.opt_d = torch.optim.Adam(discriminator.parameters(), lr=lr_d)

    def loss_eg(self, x, x_hat, r_hat, e_hat, w_i):
        adversarial = -r_hat.mean()
        content = self.perceptual(x_hat, x)
        match = F.l1_loss(w_i, e_hat)
        return adversarial + content + 80 * match

    def step(self, frames, landmarks, video_idx, x, y):
        e_vectors = self.E(frames, landmarks)
        e_hat = e_vectors.mean(dim=1)
        x_hat = self.G(y, e_hat)
        r_hat, _ = self.D(x_hat, y, video_idx)
        self.opt_eg.zero_grad()
        loss_eg = self.loss_eg(x, x_hat, r_hat, e_hat, self.D.W[:, video_idx].transpose(0, 1))
        loss_eg.backward(retain_graph=True)  # TLK201
        self.opt_eg.step()

        self.opt_d.zero_grad()
        r_x_hat, _ = self.D(x_hat.detach(), y, video_idx)
        r_x, _ = self.D(x, y, video_idx)
        loss_d = F.relu(1 + r_x_hat).mean() + F.relu(1 - r_x).mean()
        loss_d.backward()
        self.opt_d.step()
        return loss_eg.item(), loss_d.item()

    def fit(self, loader, epochs):
        for epoch in range(epochs):
            for batch in loader:
                loss_eg, loss_d = self.step(*batch)
            print(epoch, loss_eg, loss_d)
