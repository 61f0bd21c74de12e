# Source: https://github.com/pytorch/pytorch/issues/144181
# Shape: A vocoder-style GAN loop averages discriminator and generator losses over the epoch by adding the loss tensors to float accumulators.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def discriminator_loss(real_scores, fake_scores):
    return torch.mean((1 - real_scores) ** 2) + torch.mean(fake_scores ** 2)


def generator_loss(fake_scores):
    return torch.mean((1 - fake_scores) ** 2)


def feature_matching(real_feats, fake_feats):
    return sum(F.l1_loss(f, r.detach()) for r, f in zip(real_feats, fake_feats))


class Disc(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.l1 = nn.Linear(d, 64)
        self.l2 = nn.Linear(64, 32)
        self.out = nn.Linear(32, 1)

    def forward(self, x):
        h1 = F.leaky_relu(self.l1(x), 0.1)
        h2 = F.leaky_relu(self.l2(h1), 0.1)
        return self.out(h2), [h1, h2]


def run(batches):
    torch.manual_seed(0)
    gen = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 32))
    disc = Disc()
    opt_g = torch.optim.AdamW(gen.parameters(), lr=2e-4, betas=(0.8, 0.99))
    opt_d = torch.optim.AdamW(disc.parameters(), lr=2e-4, betas=(0.8, 0.99))
    disc_sum, gen_sum, steps = 0.0, 0.0, 0
    for mel, wav in batches:
        fake = gen(mel)

        opt_d.zero_grad()
        d_real, _ = disc(wav)
        d_fake, _ = disc(fake.detach())
        loss_disc = discriminator_loss(d_real, d_fake)
        loss_disc.backward()
        opt_d.step()

        opt_g.zero_grad()
        d_fake, fake_feats = disc(fake)
        _, real_feats = disc(wav)
        loss_gen = generator_loss(d_fake) + 2.0 * feature_matching(real_feats, fake_feats) + 45 * F.l1_loss(fake, wav)
        loss_gen.backward()
        opt_g.step()

        disc_sum += loss_disc  # TLK101
        gen_sum += loss_gen.item()
        steps += 1
    print(f"avg disc {float(disc_sum) / steps:.4f} avg gen {gen_sum / steps:.4f}")


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(4, 8, generator=g), torch.randn(4, 32, generator=g).tanh()) for _ in range(n)]


if __name__ == "__main__":
    run(make_batches())
