# Layout modelled on models.py of jaywalnut310/vits: SynthesizerTrn couples a text prior encoder,
# a posterior encoder on the linear spectrogram, a flow, a duration predictor and a decoder that
# only sees a random window of the latent; the multi-discriminator returns scores and feature
# maps for real and generated audio. Reduced: 1x1 convolutions, the alignment is the identity, and
# a reference encoder's style vector conditions the posterior; the model keeps running means of
# the style and of the log-durations for inference.
import torch
import torch.nn as nn

import commons


class SynthesizerTrn(nn.Module):
  def __init__(self, n_vocab, spec_channels, segment_size, hidden_channels=16, hop_length=4):
    super().__init__()
    self.segment_size = segment_size
    self.emb = nn.Embedding(n_vocab, hidden_channels)
    self.enc_p = nn.Conv1d(hidden_channels, 2 * hidden_channels, 1)
    self.ref_enc = nn.Linear(spec_channels, hidden_channels)
    self.enc_q = nn.Conv1d(spec_channels, 2 * hidden_channels, 1)
    self.flow = nn.Conv1d(hidden_channels, hidden_channels, 1)
    self.dp = nn.Conv1d(hidden_channels, 1, 1)
    self.dec = nn.ConvTranspose1d(hidden_channels, 1, hop_length, stride=hop_length)
    self.mean_style = torch.zeros(hidden_channels)
    self.mean_logw = torch.zeros(())

  def forward(self, x, x_lengths, y, y_lengths):
    x_mask = commons.sequence_mask(x_lengths, x.size(1)).unsqueeze(1).float()
    x_enc = self.emb(x).transpose(1, 2) * x_mask
    m_p, logs_p = self.enc_p(x_enc).chunk(2, dim=1)

    g = self.ref_enc(y.transpose(1, 2)).mean(1)
    z_mask = commons.sequence_mask(y_lengths, y.size(2)).unsqueeze(1).float()
    m_q, logs_q = self.enc_q(y).chunk(2, dim=1)
    m_q = m_q + g.unsqueeze(-1)
    z = (m_q + torch.randn_like(m_q) * torch.exp(logs_q)) * z_mask
    z_p = self.flow(z) * z_mask

    logw = self.dp(x_enc.detach()) * x_mask
    l_length = torch.sum((logw - torch.zeros_like(logw)) ** 2, [1, 2]) / torch.sum(x_mask)
    if self.training:
      # Measured under torch 2.13 CPU (batches of 2, 12 frames; 1, 10, 20 steps): the autograd
      # nodes reachable from net_g.mean_style grow 10 -> 91 -> 181 (+9 per step), holding 8 ->
      # 152 -> 312 B of saved tensors (+16 B per step); none from mean_logw; none with g.detach().
      self.mean_style = 0.99 * self.mean_style + 0.01 * g.mean(0)  # expect: TLK103
      self.mean_logw = 0.99 * self.mean_logw + 0.01 * logw.detach().mean()  # clean: detached

    z_slice, ids_slice = commons.rand_slice_segments(z, y_lengths, self.segment_size)
    o = self.dec(z_slice)
    return o, l_length, ids_slice, z_mask, (z, z_p, m_p, logs_p, m_q, logs_q)

  @torch.no_grad()
  def infer(self, x, x_lengths, noise_scale=0.667):
    x_mask = commons.sequence_mask(x_lengths, x.size(1)).unsqueeze(1).float()
    x_enc = self.emb(x).transpose(1, 2) * x_mask
    m_p, logs_p = self.enc_p(x_enc).chunk(2, dim=1)
    z_p = (m_p + torch.randn_like(m_p) * torch.exp(logs_p) * noise_scale) * x_mask
    return self.dec(z_p + self.mean_style.unsqueeze(-1))


class DiscriminatorP(nn.Module):
  def __init__(self, period, channels=8):
    super().__init__()
    self.period = period
    self.convs = nn.ModuleList([nn.Conv1d(period, channels, 1), nn.Conv1d(channels, channels, 1)])
    self.conv_post = nn.Conv1d(channels, 1, 1)

  def forward(self, x):
    b, c, t = x.shape
    x = x.view(b, self.period, t // self.period)
    fmap = []
    for conv in self.convs:
      x = torch.nn.functional.leaky_relu(conv(x), 0.1)
      fmap.append(x)
    x = self.conv_post(x)
    fmap.append(x)
    return torch.flatten(x, 1, -1), fmap


class MultiPeriodDiscriminator(nn.Module):
  def __init__(self, periods=(1, 2, 4)):
    super().__init__()
    self.discriminators = nn.ModuleList([DiscriminatorP(p) for p in periods])

  def forward(self, y, y_hat):
    y_d_rs, y_d_gs, fmap_rs, fmap_gs = [], [], [], []
    for d in self.discriminators:
      y_d_r, fmap_r = d(y)
      y_d_g, fmap_g = d(y_hat)
      y_d_rs.append(y_d_r)
      y_d_gs.append(y_d_g)
      fmap_rs.append(fmap_r)
      fmap_gs.append(fmap_g)
    return y_d_rs, y_d_gs, fmap_rs, fmap_gs
