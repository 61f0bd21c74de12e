"""A tiny Conv-TasNet: conv encoder, TCN-ish mask estimator, transposed-conv decoder."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class TemporalBlock(nn.Module):
    def __init__(self, channels, hidden, dilation):
        super().__init__()
        self.conv_in = nn.Conv1d(channels, hidden, 1)
        self.dconv = nn.Conv1d(hidden, hidden, 3, padding=dilation, dilation=dilation, groups=hidden)
        self.conv_out = nn.Conv1d(hidden, channels, 1)
        self.act = nn.PReLU()

    def forward(self, x):
        y = self.act(self.conv_in(x))
        y = self.act(self.dconv(y))
        return x + self.conv_out(y)


class ConvTasNet(nn.Module):
    def __init__(self, N=16, L=16, B=8, H=16, X=2, C=2, keep_masks=True):
        super().__init__()
        self.C, self.N, self.L = C, N, L
        self.encoder = nn.Conv1d(1, N, L, stride=L // 2, bias=False)
        self.bottleneck = nn.Conv1d(N, B, 1)
        self.tcn = nn.Sequential(*[TemporalBlock(B, H, 2 ** i) for i in range(X)])
        self.mask_conv = nn.Conv1d(B, C * N, 1)
        self.decoder = nn.ConvTranspose1d(N, 1, L, stride=L // 2, bias=False)
        # masks of recent batches, dumped to disk by the solver for inspection
        self.keep_masks = keep_masks
        self.mask_history = []

    def forward(self, mixture):
        mixture_w = F.relu(self.encoder(mixture.unsqueeze(1)))  # [B, N, K]
        score = self.mask_conv(self.tcn(self.bottleneck(mixture_w)))  # [B, C*N, K]
        M, _, K = score.size()
        est_mask = F.relu(score.view(M, self.C, self.N, K))
        if self.keep_masks and self.training:
            self.mask_history.append(est_mask)  # expect: TLK102
        source_w = mixture_w.unsqueeze(1) * est_mask  # [B, C, N, K]
        est = self.decoder(source_w.view(M * self.C, self.N, K)).view(M, self.C, -1)
        T = mixture.size(-1)
        return F.pad(est, (0, T - est.size(-1)))
