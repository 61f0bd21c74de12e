# Source: https://github.com/rishikksh20/VocGAN/pull/24
# Shape: Fixed as in the merged PR: adv_loss.item() is appended, so the display list holds floats; loss_d_sum += loss_d stays a tensor only inside the step and is turned into a float before the step ends.
# Verdict: clean
"""Scaled-down VocGAN-style trainer (utils/train.py layout): multi-resolution STFT
loss + multi-scale discriminator, hinge-free LSGAN objective, tqdm-style running
averages.  Synthetic mel/audio pairs on CPU."""
import math
import itertools

import torch
import torch.nn as nn
import torch.nn.functional as F


class HParams:
    class audio:
        n_mel_channels = 8
        hop_length = 16
        segment_length = 256

    class train:
        discriminator_train_start_steps = 2
        rep_discriminator = 1
        lr = 1e-4

    class model:
        lambda_adv = 2.5
        feat_loss = True
        feat_match = 10.0

    class log:
        summary_interval = 5


class ModifiedGenerator(nn.Module):
    def __init__(self, mel_channel, hop):
        super().__init__()
        self.pre = nn.Conv1d(mel_channel, 32, 3, padding=1)
        self.up = nn.ConvTranspose1d(32, 16, hop, stride=hop)
        self.post = nn.Conv1d(16, 1, 3, padding=1)

    def forward(self, mel):
        x = F.leaky_relu(self.pre(mel), 0.2)
        x = F.leaky_relu(self.up(x), 0.2)
        return torch.tanh(self.post(x))


class DiscriminatorBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList([
            nn.Conv1d(1, 8, 15, padding=7),
            nn.Conv1d(8, 16, 9, stride=4, padding=4),
            nn.Conv1d(16, 16, 5, padding=2),
        ])
        self.out = nn.Conv1d(16, 1, 3, padding=1)

    def forward(self, x):
        feats = []
        for layer in self.layers:
            x = F.leaky_relu(layer(x), 0.2)
            feats.append(x)
        return feats, self.out(x)


class MultiScaleDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.discriminators = nn.ModuleList([DiscriminatorBlock() for _ in range(3)])
        self.pooling = nn.AvgPool1d(4, stride=2, padding=1)

    def forward(self, x):
        ret = []
        for disc in self.discriminators:
            ret.append(disc(x))
            x = self.pooling(x)
        return ret


def stft_magnitude(x, fft_size, hop, win):
    window = torch.hann_window(win)
    spec = torch.stft(x, fft_size, hop, win, window, return_complex=True)
    return torch.clamp(spec.abs(), min=1e-7)


class MultiResolutionSTFTLoss(nn.Module):
    def __init__(self, resolutions=((64, 16, 64), (128, 32, 128))):
        super().__init__()
        self.resolutions = resolutions

    def forward(self, x, y):
        sc_loss, mag_loss = 0.0, 0.0
        for fft, hop, win in self.resolutions:
            x_mag = stft_magnitude(x, fft, hop, win)
            y_mag = stft_magnitude(y, fft, hop, win)
            sc_loss += torch.norm(y_mag - x_mag, p="fro") / torch.norm(y_mag, p="fro")
            mag_loss += F.l1_loss(torch.log(y_mag), torch.log(x_mag))
        return sc_loss / len(self.resolutions), mag_loss / len(self.resolutions)


class Writer:
    """Stand-in for the tensorboard writer: keeps scalars as floats."""

    def __init__(self):
        self.scalars = []

    def log_training(self, g_loss, d_loss, adv_loss, step):
        self.scalars.append((step, float(g_loss), float(d_loss), float(adv_loss)))


def make_batches(n, batch=2, hp=HParams):
    torch.manual_seed(0)
    frames = hp.audio.segment_length // hp.audio.hop_length
    out = []
    for _ in range(n):
        melG = torch.randn(batch, hp.audio.n_mel_channels, frames)
        audioG = torch.randn(batch, 1, hp.audio.segment_length) * 0.1
        melD = torch.randn(batch, hp.audio.n_mel_channels, frames)
        audioD = torch.randn(batch, 1, hp.audio.segment_length) * 0.1
        out.append(((melG, audioG), (melD, audioD)))
    return out


def train(trainloader, writer, hp=HParams):
    model_g = ModifiedGenerator(hp.audio.n_mel_channels, hp.audio.hop_length)
    model_d = MultiScaleDiscriminator()
    optim_g = torch.optim.Adam(model_g.parameters(), lr=hp.train.lr, betas=(0.5, 0.9))
    optim_d = torch.optim.Adam(model_d.parameters(), lr=hp.train.lr, betas=(0.5, 0.9))
    stft_loss = MultiResolutionSTFTLoss()
    criterion = torch.nn.MSELoss()
    step = 0
    model_g.train()
    model_d.train()

    for epoch in itertools.count(0):
        avg_g_loss = []
        avg_d_loss = []
        avg_adv_loss = []
        desc = ""
        for (melG, audioG), (melD, audioD) in trainloader:
            # generator
            optim_g.zero_grad()
            fake_audio = model_g(melG)[:, :, :hp.audio.segment_length]
            sc_loss, mag_loss = stft_loss(fake_audio.squeeze(1), audioG.squeeze(1))
            loss_g = sc_loss + mag_loss

            adv_loss = 0.0
            if step > hp.train.discriminator_train_start_steps:
                disc_real = model_d(audioG)
                disc_fake = model_d(fake_audio)
                for feats_fake, score_fake in disc_fake:
                    adv_loss += criterion(score_fake, torch.ones_like(score_fake))
                adv_loss = adv_loss / len(disc_fake)
                if hp.model.feat_loss:
                    for (feats_fake, score_fake), (feats_real, _) in zip(disc_fake, disc_real):
                        for feat_f, feat_r in zip(feats_fake, feats_real):
                            adv_loss += hp.model.feat_match * torch.mean(torch.abs(feat_f - feat_r))
                loss_g += hp.model.lambda_adv * adv_loss

            loss_g.backward()
            optim_g.step()

            # discriminator
            loss_d_avg = 0.0
            if step > hp.train.discriminator_train_start_steps:
                fake_audio = model_g(melD)[:, :, :hp.audio.segment_length]
                fake_audio = fake_audio.detach()
                loss_d_sum = 0.0
                for _ in range(hp.train.rep_discriminator):
                    optim_d.zero_grad()
                    disc_fake = model_d(fake_audio)
                    disc_real = model_d(audioD)
                    loss_d_real = 0.0
                    loss_d_fake = 0.0
                    for (_, score_fake), (_, score_real) in zip(disc_fake, disc_real):
                        loss_d_real += criterion(score_real, torch.ones_like(score_real))
                        loss_d_fake += criterion(score_fake, torch.zeros_like(score_fake))
                    loss_d = loss_d_real / len(disc_real) + loss_d_fake / len(disc_fake)
                    loss_d.backward()
                    optim_d.step()
                    loss_d_sum += loss_d
                loss_d_avg = loss_d_sum / hp.train.rep_discriminator
                loss_d_avg = loss_d_avg.item()

            step += 1
            # logging
            loss_g = loss_g.item()
            avg_g_loss.append(loss_g)
            avg_d_loss.append(loss_d_avg)
            avg_adv_loss.append(adv_loss.item() if torch.is_tensor(adv_loss) else adv_loss)
            if any([loss_g > 1e8, math.isnan(loss_g), loss_d_avg > 1e8, math.isnan(loss_d_avg)]):
                raise Exception("Loss exploded")

            if step % hp.log.summary_interval == 0:
                writer.log_training(loss_g, loss_d_avg, adv_loss, step)
                desc = "Avg : g %.04f d %.04f ad %.04f| step %d" % (
                    sum(avg_g_loss) / len(avg_g_loss),
                    sum(avg_d_loss) / len(avg_d_loss),
                    sum(avg_adv_loss) / len(avg_adv_loss),
                    step)
        # one pass over the synthetic loader is one "epoch" here
        return {"model_g": model_g, "model_d": model_d, "avg_adv_loss": avg_adv_loss,
                "avg_g_loss": avg_g_loss, "desc": desc}


def run(steps):
    writer = Writer()
    state = train(make_batches(steps), writer)
    state["writer"] = writer
    return state


if __name__ == "__main__":
    run(10)
