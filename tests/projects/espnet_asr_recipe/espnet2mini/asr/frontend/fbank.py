import math
from typing import Tuple

import torch

from espnet2mini.asr.frontend.abs_frontend import AbsFrontend


def _mel(f):
    return 1127.0 * math.log(1.0 + f / 700.0)


def mel_filterbank(fs: int, n_fft: int, n_mels: int) -> torch.Tensor:
    n_freq = n_fft // 2 + 1
    freqs = torch.linspace(0, fs / 2, n_freq)
    mel_f = 1127.0 * torch.log1p(freqs / 700.0)
    edges = torch.linspace(_mel(0.0), _mel(fs / 2), n_mels + 2)
    fb = torch.zeros(n_mels, n_freq)
    for m in range(n_mels):
        lo, c, hi = edges[m], edges[m + 1], edges[m + 2]
        up = (mel_f - lo) / (c - lo)
        down = (hi - mel_f) / (hi - c)
        fb[m] = torch.clamp(torch.minimum(up, down), min=0.0)
    return fb


class LearnableFbank(AbsFrontend):
    """STFT -> power -> trainable (mel-initialised) filterbank -> log.

    Like DefaultFrontend, but the filterbank weights are parameters (cf. the
    fused / learnable frontends), so the features carry autograd history.
    """

    def __init__(self, fs: int = 16000, n_fft: int = 512, hop_length: int = 128, n_mels: int = 80):
        super().__init__()
        self.n_fft = n_fft
        self.hop_length = hop_length
        self.n_mels = n_mels
        self.register_buffer("window", torch.hann_window(n_fft))
        self.fb_logit = torch.nn.Parameter(torch.log(mel_filterbank(fs, n_fft, n_mels) + 1e-3))

    def output_size(self) -> int:
        return self.n_mels

    def forward(
        self, input: torch.Tensor, input_lengths: torch.Tensor
    ) -> Tuple[torch.Tensor, torch.Tensor]:
        spec = torch.stft(input, n_fft=self.n_fft, hop_length=self.hop_length,
                          window=self.window, center=True, return_complex=True)
        power = spec.real.pow(2) + spec.imag.pow(2)  # (B, F, T)
        feats = torch.matmul(torch.exp(self.fb_logit), power).transpose(1, 2)  # (B, T, n_mels)
        feats = torch.log(feats + 1e-6)
        feats_lens = input_lengths // self.hop_length + 1
        return feats, feats_lens
