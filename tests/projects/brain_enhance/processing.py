"""Feature extraction / resynthesis / augmentation (speechbrain.processing & augment)."""

import torch


class STFT(torch.nn.Module):
    def __init__(self, n_fft=256, hop_length=128):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)

    def forward(self, wavs):
        return torch.stft(wavs, self.n_fft, self.hop_length, window=self.window,
                          return_complex=True).transpose(1, 2)  # [B, T, F]


class ISTFT(torch.nn.Module):
    def __init__(self, n_fft=256, hop_length=128):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.register_buffer("window", torch.hann_window(n_fft), persistent=False)

    def forward(self, spec, sig_length):
        return torch.istft(spec.transpose(1, 2), self.n_fft, self.hop_length,
                           window=self.window, length=sig_length)


def spectral_magnitude(stft, power=1.0, eps=1e-14):
    return (stft.real.pow(2) + stft.imag.pow(2) + eps).pow(power)


class Resynth(torch.nn.Module):
    """Resynthesise a waveform from an enhanced magnitude and the noisy phase."""

    def __init__(self, stft, istft):
        super().__init__()
        self.stft = stft
        self.istft = istft

    def forward(self, enhanced_mag, noisy_wavs):
        noisy_phase = torch.angle(self.stft(noisy_wavs))
        complex_spec = torch.polar(enhanced_mag, noisy_phase)
        return self.istft(complex_spec, noisy_wavs.shape[-1])


class AddNoise(torch.nn.Module):
    """Deterministic additive white noise at a fixed SNR (stands in for wav_augment)."""

    def __init__(self, snr_db=5.0, seed=7):
        super().__init__()
        self.snr_db = snr_db
        self.generator = torch.Generator().manual_seed(seed)

    def forward(self, wavs, lens):
        noise = torch.randn(wavs.shape, generator=self.generator)
        sig_pow = wavs.pow(2).mean(dim=1, keepdim=True)
        noise_pow = noise.pow(2).mean(dim=1, keepdim=True)
        scale = torch.sqrt(sig_pow / (noise_pow * 10 ** (self.snr_db / 10)))
        return wavs + scale * noise, lens
