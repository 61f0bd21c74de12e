import torch
from torch.nn import functional as F

import commons


def feature_loss(fmap_r, fmap_g):
  loss = 0
  for dr, dg in zip(fmap_r, fmap_g):
    for rl, gl in zip(dr, dg):
      rl = rl.float().detach()
      gl = gl.float()
      loss += torch.mean(torch.abs(rl - gl))

  return loss * 2


def discriminator_loss(disc_real_outputs, disc_generated_outputs):
  loss = 0
  r_losses = []
  g_losses = []
  for dr, dg in zip(disc_real_outputs, disc_generated_outputs):
    dr = dr.float()
    dg = dg.float()
    r_loss = torch.mean((1-dr)**2)
    g_loss = torch.mean(dg**2)
    loss += (r_loss + g_loss)
    r_losses.append(r_loss.item())
    g_losses.append(g_loss.item())

  return loss, r_losses, g_losses


def generator_loss(disc_outputs):
  loss = 0
  gen_losses = []
  for dg in disc_outputs:
    dg = dg.float()
    l = torch.mean((1-dg)**2)
    gen_losses.append(l)
    loss += l

  return loss, gen_losses


def kl_loss(z_p, logs_q, m_p, logs_p, z_mask):
  """
  z_p, logs_q: [b, h, t_t]
  m_p, logs_p: [b, h, t_t]
  """
  z_p = z_p.float()
  logs_q = logs_q.float()
  m_p = m_p.float()
  logs_p = logs_p.float()
  z_mask = z_mask.float()

  kl = logs_p - logs_q - 0.5
  kl += 0.5 * ((z_p - m_p)**2) * torch.exp(-2. * logs_p)
  kl = torch.sum(kl * z_mask)
  l = kl / torch.sum(z_mask)
  return l


class R1Regularizer:
  """Zero-centred gradient penalty on real waveforms (Mescheder et al., 2018).
  Keeps the per-step gradient norm around for logging."""
  def __init__(self, gamma):
    self.gamma = gamma
    self.grad_norms = []

  def __call__(self, disc_real_outputs, y):
    if self.gamma <= 0:
      return torch.zeros((), device=y.device)
    out = sum(dr.float().sum() for dr in disc_real_outputs)
    grad_real, = torch.autograd.grad(outputs=out, inputs=y, create_graph=True)
    grad_penalty = grad_real.pow(2).reshape(grad_real.size(0), -1).sum(1).mean()
    self.grad_norms.append(grad_real.norm(2))  # expect: TLK301
    return 0.5 * self.gamma * grad_penalty

  def last_norm(self):
    return self.grad_norms[-1] if self.grad_norms else 0.0


def calculate_adaptive_weight(rec_loss, g_loss, last_layer, max_weight=1e4):
  """Balance the adversarial term against the reconstruction term by the ratio of
  their gradient norms at the last decoder layer (Esser et al., taming-transformers)."""
  rec_grads = torch.autograd.grad(rec_loss, last_layer, retain_graph=True)[0]
  g_grads = torch.autograd.grad(g_loss, last_layer, retain_graph=True)[0]

  d_weight = torch.norm(rec_grads) / (torch.norm(g_grads) + 1e-4)
  d_weight = torch.clamp(d_weight, 0.0, max_weight).detach()
  return d_weight
