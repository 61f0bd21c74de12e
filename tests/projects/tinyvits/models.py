import math
import torch
from torch import nn
from torch.nn import functional as F
from torch.nn import Conv1d, ConvTranspose1d, Conv2d
from torch.nn.utils.parametrizations import weight_norm, spectral_norm

import commons
from commons import init_weights, get_padding


LRELU_SLOPE = 0.1


class LayerNorm(nn.Module):
  def __init__(self, channels, eps=1e-5):
    super().__init__()
    self.channels = channels
    self.eps = eps
    self.gamma = nn.Parameter(torch.ones(channels))
    self.beta = nn.Parameter(torch.zeros(channels))

  def forward(self, x):
    x = x.transpose(1, -1)
    x = F.layer_norm(x, (self.channels,), self.gamma, self.beta, self.eps)
    return x.transpose(1, -1)


class ConvStack(nn.Module):
  def __init__(self, channels, kernel_size, n_layers, p_dropout, gin_channels=0):
    super().__init__()
    self.convs = nn.ModuleList()
    self.norms = nn.ModuleList()
    for _ in range(n_layers):
      self.convs.append(nn.Conv1d(channels, channels, kernel_size, padding=kernel_size//2))
      self.norms.append(LayerNorm(channels))
    self.drop = nn.Dropout(p_dropout)
    if gin_channels != 0:
      self.cond = nn.Conv1d(gin_channels, channels, 1)

  def forward(self, x, x_mask, g=None):
    if g is not None:
      x = x + self.cond(g)
    for conv, norm in zip(self.convs, self.norms):
      y = conv(x * x_mask)
      y = self.drop(F.gelu(norm(y)))
      x = x + y
    return x * x_mask


class DurationPredictor(nn.Module):
  def __init__(self, in_channels, filter_channels, kernel_size, p_dropout, gin_channels=0):
    super().__init__()
    self.drop = nn.Dropout(p_dropout)
    self.conv_1 = nn.Conv1d(in_channels, filter_channels, kernel_size, padding=kernel_size//2)
    self.norm_1 = LayerNorm(filter_channels)
    self.conv_2 = nn.Conv1d(filter_channels, filter_channels, kernel_size, padding=kernel_size//2)
    self.norm_2 = LayerNorm(filter_channels)
    self.proj = nn.Conv1d(filter_channels, 1, 1)
    if gin_channels != 0:
      self.cond = nn.Conv1d(gin_channels, in_channels, 1)

  def forward(self, x, x_mask, g=None):
    x = torch.detach(x)
    if g is not None:
      g = torch.detach(g)
      x = x + self.cond(g)
    x = self.drop(self.norm_1(torch.relu(self.conv_1(x * x_mask))))
    x = self.drop(self.norm_2(torch.relu(self.conv_2(x * x_mask))))
    x = self.proj(x * x_mask)
    return x * x_mask


class TextEncoder(nn.Module):
  def __init__(self, n_vocab, out_channels, hidden_channels, kernel_size, n_layers, p_dropout):
    super().__init__()
    self.out_channels = out_channels
    self.hidden_channels = hidden_channels
    self.emb = nn.Embedding(n_vocab, hidden_channels)
    nn.init.normal_(self.emb.weight, 0.0, hidden_channels**-0.5)
    self.encoder = ConvStack(hidden_channels, kernel_size, n_layers, p_dropout)
    self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

  def forward(self, x, x_lengths):
    x = self.emb(x) * math.sqrt(self.hidden_channels) # [b, t, h]
    x = torch.transpose(x, 1, -1) # [b, h, t]
    x_mask = torch.unsqueeze(commons.sequence_mask(x_lengths, x.size(2)), 1).to(x.dtype)
    x = self.encoder(x * x_mask, x_mask)
    stats = self.proj(x) * x_mask
    m, logs = torch.split(stats, self.out_channels, dim=1)
    return x, m, logs, x_mask


class PosteriorEncoder(nn.Module):
  def __init__(self, in_channels, out_channels, hidden_channels, kernel_size, n_layers, gin_channels=0):
    super().__init__()
    self.out_channels = out_channels
    self.pre = nn.Conv1d(in_channels, hidden_channels, 1)
    self.enc = ConvStack(hidden_channels, kernel_size, n_layers, 0.0, gin_channels=gin_channels)
    self.proj = nn.Conv1d(hidden_channels, out_channels * 2, 1)

  def forward(self, x, x_lengths, g=None):
    x_mask = torch.unsqueeze(commons.sequence_mask(x_lengths, x.size(2)), 1).to(x.dtype)
    x = self.pre(x) * x_mask
    x = self.enc(x, x_mask, g=g)
    stats = self.proj(x) * x_mask
    m, logs = torch.split(stats, self.out_channels, dim=1)
    z = (m + torch.randn_like(m) * torch.exp(logs)) * x_mask
    return z, m, logs, x_mask


class ElementwiseAffine(nn.Module):
  def __init__(self, channels):
    super().__init__()
    self.channels = channels
    self.m = nn.Parameter(torch.zeros(channels,1))
    self.logs = nn.Parameter(torch.zeros(channels,1))

  def forward(self, x, x_mask, reverse=False, **kwargs):
    if not reverse:
      y = self.m + torch.exp(self.logs) * x
      y = y * x_mask
      return y
    else:
      x = (x - self.m) * torch.exp(-self.logs) * x_mask
      return x


class SpeakerEncoder(nn.Module):
  """d-vector style speaker encoder on log-mel frames.  Loaded from a
  speaker-verification checkpoint and kept frozen during TTS training."""
  def __init__(self, spec_channels, gin_channels, hidden=32):
    super().__init__()
    self.pre = nn.Conv1d(spec_channels, hidden, 3, padding=1)
    self.post = nn.Conv1d(hidden, hidden, 3, padding=1)
    self.proj = nn.Linear(hidden, gin_channels)

  def forward(self, spec, spec_lengths):
    mask = torch.unsqueeze(commons.sequence_mask(spec_lengths, spec.size(2)), 1).to(spec.dtype)
    x = torch.log(spec.clamp(min=1e-5))
    x = F.relu(self.pre(x * mask))
    x = F.relu(self.post(x * mask))
    x = (x * mask).sum(2) / mask.sum(2)
    g = F.normalize(self.proj(x), dim=1)
    return g.unsqueeze(-1)


class Generator(torch.nn.Module):
  def __init__(self, initial_channel, upsample_rates, upsample_initial_channel, upsample_kernel_sizes, gin_channels=0):
    super(Generator, self).__init__()
    self.num_upsamples = len(upsample_rates)
    self.conv_pre = Conv1d(initial_channel, upsample_initial_channel, 7, 1, padding=3)

    self.ups = nn.ModuleList()
    self.resblocks = nn.ModuleList()
    for i, (u, k) in enumerate(zip(upsample_rates, upsample_kernel_sizes)):
      ch = upsample_initial_channel//(2**(i+1))
      self.ups.append(weight_norm(
          ConvTranspose1d(upsample_initial_channel//(2**i), ch, k, u, padding=(k-u)//2)))
      self.resblocks.append(Conv1d(ch, ch, 3, 1, padding=get_padding(3, 1)))

    self.conv_post = Conv1d(ch, 1, 7, 1, padding=3, bias=False)
    self.ups.apply(init_weights)

    if gin_channels != 0:
      self.cond = nn.Conv1d(gin_channels, upsample_initial_channel, 1)

  def forward(self, x, g=None):
    x = self.conv_pre(x)
    if g is not None:
      x = x + self.cond(g)

    for i in range(self.num_upsamples):
      x = F.leaky_relu(x, LRELU_SLOPE)
      x = self.ups[i](x)
      x = x + self.resblocks[i](F.leaky_relu(x, LRELU_SLOPE))
    x = F.leaky_relu(x)
    x = self.conv_post(x)
    x = torch.tanh(x)
    return x


class DiscriminatorP(torch.nn.Module):
  def __init__(self, period, kernel_size=5, stride=3, use_spectral_norm=False):
    super(DiscriminatorP, self).__init__()
    self.period = period
    norm_f = weight_norm if use_spectral_norm == False else spectral_norm
    self.convs = nn.ModuleList([
      norm_f(Conv2d(1, 8, (kernel_size, 1), (stride, 1), padding=(get_padding(kernel_size, 1), 0))),
      norm_f(Conv2d(8, 16, (kernel_size, 1), (stride, 1), padding=(get_padding(kernel_size, 1), 0))),
      norm_f(Conv2d(16, 16, (kernel_size, 1), 1, padding=(get_padding(kernel_size, 1), 0))),
    ])
    self.conv_post = norm_f(Conv2d(16, 1, (3, 1), 1, padding=(1, 0)))

  def forward(self, x):
    fmap = []

    # 1d to 2d
    b, c, t = x.shape
    if t % self.period != 0: # pad first
      n_pad = self.period - (t % self.period)
      x = F.pad(x, (0, n_pad), "reflect")
      t = t + n_pad
    x = x.view(b, c, t // self.period, self.period)

    for l in self.convs:
      x = l(x)
      x = F.leaky_relu(x, LRELU_SLOPE)
      fmap.append(x)
    x = self.conv_post(x)
    fmap.append(x)
    x = torch.flatten(x, 1, -1)

    return x, fmap


class DiscriminatorS(torch.nn.Module):
  def __init__(self, use_spectral_norm=False):
    super(DiscriminatorS, self).__init__()
    norm_f = weight_norm if use_spectral_norm == False else spectral_norm
    self.convs = nn.ModuleList([
      norm_f(Conv1d(1, 8, 15, 1, padding=7)),
      norm_f(Conv1d(8, 16, 41, 4, groups=4, padding=20)),
      norm_f(Conv1d(16, 16, 5, 1, padding=2)),
    ])
    self.conv_post = norm_f(Conv1d(16, 1, 3, 1, padding=1))

  def forward(self, x):
    fmap = []

    for l in self.convs:
      x = l(x)
      x = F.leaky_relu(x, LRELU_SLOPE)
      fmap.append(x)
    x = self.conv_post(x)
    fmap.append(x)
    x = torch.flatten(x, 1, -1)

    return x, fmap


class MultiPeriodDiscriminator(torch.nn.Module):
  def __init__(self, use_spectral_norm=False, periods=(2, 3)):
    super(MultiPeriodDiscriminator, self).__init__()
    discs = [DiscriminatorS(use_spectral_norm=use_spectral_norm)]
    discs = discs + [DiscriminatorP(i, use_spectral_norm=use_spectral_norm) for i in periods]
    self.discriminators = nn.ModuleList(discs)

  def forward(self, y, y_hat):
    y_d_rs = []
    y_d_gs = []
    fmap_rs = []
    fmap_gs = []
    for i, d in enumerate(self.discriminators):
      y_d_r, fmap_r = d(y)
      y_d_g, fmap_g = d(y_hat)
      y_d_rs.append(y_d_r)
      y_d_gs.append(y_d_g)
      fmap_rs.append(fmap_r)
      fmap_gs.append(fmap_g)

    return y_d_rs, y_d_gs, fmap_rs, fmap_gs


class SynthesizerTrn(nn.Module):
  """
  Synthesizer for Training
  """

  def __init__(self,
    n_vocab,
    spec_channels,
    segment_size,
    inter_channels,
    hidden_channels,
    filter_channels,
    n_layers,
    kernel_size,
    p_dropout,
    upsample_rates,
    upsample_initial_channel,
    upsample_kernel_sizes,
    gin_channels=0,
    frames_per_token=4,
    **kwargs):

    super().__init__()
    self.n_vocab = n_vocab
    self.spec_channels = spec_channels
    self.inter_channels = inter_channels
    self.hidden_channels = hidden_channels
    self.segment_size = segment_size
    self.gin_channels = gin_channels
    self.frames_per_token = frames_per_token

    self.enc_p = TextEncoder(n_vocab, inter_channels, hidden_channels, kernel_size, n_layers, p_dropout)
    self.dec = Generator(inter_channels, upsample_rates, upsample_initial_channel, upsample_kernel_sizes, gin_channels=gin_channels)
    self.enc_q = PosteriorEncoder(spec_channels, inter_channels, hidden_channels, kernel_size, n_layers, gin_channels=gin_channels)
    self.flow = ElementwiseAffine(inter_channels)
    self.dp = DurationPredictor(hidden_channels, filter_channels, kernel_size, p_dropout, gin_channels=gin_channels)
    self.spk_enc = SpeakerEncoder(spec_channels, gin_channels)

  def align(self, x_mask, y_mask):
    # fixed-rate alignment (the synthetic corpus has known token durations)
    w = torch.ones_like(x_mask) * self.frames_per_token * x_mask
    attn_mask = torch.unsqueeze(x_mask, 2) * torch.unsqueeze(y_mask, -1)
    attn = commons.generate_path(w, attn_mask)
    return w, attn

  def forward(self, x, x_lengths, y, y_lengths):
    x, m_p, logs_p, x_mask = self.enc_p(x, x_lengths)
    g = self.spk_enc(y, y_lengths)

    z, m_q, logs_q, y_mask = self.enc_q(y, y_lengths, g=g)
    z_p = self.flow(z, y_mask, g=g)

    w, attn = self.align(x_mask, y_mask)
    logw_ = torch.log(w + 1e-6) * x_mask
    logw = self.dp(x, x_mask, g=g)
    l_length = torch.sum((logw - logw_)**2, [1,2]) / torch.sum(x_mask) # for averaging

    # expand prior
    m_p = torch.matmul(attn.squeeze(1), m_p.transpose(1, 2)).transpose(1, 2)
    logs_p = torch.matmul(attn.squeeze(1), logs_p.transpose(1, 2)).transpose(1, 2)

    z_slice, ids_slice = commons.rand_slice_segments(z, y_lengths, self.segment_size)
    o = self.dec(z_slice, g=g)
    return o, l_length, attn, ids_slice, x_mask, y_mask, (z, z_p, m_p, logs_p, m_q, logs_q)

  def infer(self, x, x_lengths, ref_spec, ref_lengths, noise_scale=0.667, max_len=None):
    x, m_p, logs_p, x_mask = self.enc_p(x, x_lengths)
    g = self.spk_enc(ref_spec, ref_lengths)
    y_lengths = x_lengths * self.frames_per_token
    y_mask = torch.unsqueeze(commons.sequence_mask(y_lengths, None), 1).to(x_mask.dtype)
    _, attn = self.align(x_mask, y_mask)
    m_p = torch.matmul(attn.squeeze(1), m_p.transpose(1, 2)).transpose(1, 2)
    logs_p = torch.matmul(attn.squeeze(1), logs_p.transpose(1, 2)).transpose(1, 2)
    z_p = m_p + torch.randn_like(m_p) * torch.exp(logs_p) * noise_scale
    z = self.flow(z_p, y_mask, g=g, reverse=True)
    o = self.dec((z * y_mask)[:,:,:max_len], g=g)
    return o, attn, y_mask, (z, z_p, m_p, logs_p)
