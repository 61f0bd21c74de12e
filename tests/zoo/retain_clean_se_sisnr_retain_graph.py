# Source: https://github.com/Jungjaehee/master-course-backup/blob/5e7371435346f676f7a929b689f4cb6458b823f0/SpeechEnhancement/DCUNET_ATT_VCTK/UNET/utils/loss_func.py
# Shape: the SI-SNR loss is backwarded with retain_graph=True because the spectral-magnitude loss is backwarded right after through the same enhancer graph (a real second backward); the epoch totals use .item(), so nothing from the graph outlives the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SI_SNR:
    def __init__(self):
        self.loss = self.si_snr

    def __call__(self, clean_wav, enhanced_wav):
        return self.loss(clean_wav, enhanced_wav)

    def si_snr(self, clean, enhanced):
        snr = torch.zeros(enhanced.shape[0])
        for i in range(enhanced.shape[0]):
            target = (torch.dot(clean[i], enhanced[i]) * clean[i]) / torch.norm(clean[i]) ** 2
            noise = enhanced[i] - target
            snr[i] += 10 * torch.log10((torch.norm(target) ** 2) / torch.norm(noise) ** 2)
        return -torch.mean(snr)


class ConvEnhancer(nn.Module):
    """Tiny waveform U-Net-ish enhancer (encoder/decoder with one skip)."""

    def __init__(self, ch=16):
        super().__init__()
        self.enc1 = nn.Conv1d(1, ch, 9, stride=2, padding=4)
        self.enc2 = nn.Conv1d(ch, 2 * ch, 9, stride=2, padding=4)
        self.dec2 = nn.ConvTranspose1d(2 * ch, ch, 8, stride=2, padding=3)
        self.dec1 = nn.ConvTranspose1d(2 * ch, 1, 8, stride=2, padding=3)

    def forward(self, noisy):
        x = noisy.unsqueeze(1)
        e1 = F.leaky_relu(self.enc1(x), 0.1)
        e2 = F.leaky_relu(self.enc2(e1), 0.1)
        d2 = F.leaky_relu(self.dec2(e2), 0.1)
        out = torch.tanh(self.dec1(torch.cat([d2, e1], dim=1)))
        return out.squeeze(1)


def stft_mag(wav, n_fft=128, hop=32):
    window = torch.hann_window(n_fft)
    spec = torch.stft(wav, n_fft, hop_length=hop, window=window, return_complex=True)
    return spec.abs()


def make_pair(seed, batch=4, length=1024):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length).float()
    f0 = 0.02 + 0.05 * torch.rand(batch, 1, generator=g)
    clean = 0.5 * torch.sin(2 * torch.pi * f0 * t)
    noisy = clean + 0.2 * torch.randn(batch, length, generator=g)
    return noisy, clean


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 10_000, (n,))]


def run(batches):
    torch.manual_seed(1)
    model = ConvEnhancer()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-4)
    si_snr = SI_SNR()
    mag_weight = 0.5
    total_sisnr, total_mag, n = 0.0, 0.0, 0
    for step, seed in enumerate(batches):
        noisy, clean = make_pair(seed)
        model.train()
        optimizer.zero_grad()
        enhanced = model(noisy)
        loss_sisnr = si_snr(clean, enhanced)
        loss_mag = mag_weight * F.l1_loss(stft_mag(enhanced), stft_mag(clean))
        loss_sisnr.backward(retain_graph=True)
        loss_mag.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        optimizer.step()
        total_sisnr += loss_sisnr.item()
        total_mag += loss_mag.item()
        n += 1
    return total_sisnr / max(n, 1), total_mag / max(n, 1)
