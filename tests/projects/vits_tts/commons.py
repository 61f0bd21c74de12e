# Modelled on commons.py of jaywalnut310/vits: segment slicing for the windowed decoder,
# sequence masks, and clip_grad_value_, which returns the gradient norm as a number.
import torch


def slice_segments(x, ids_str, segment_size=4):
  ret = torch.zeros_like(x[:, :, :segment_size])
  for i in range(x.size(0)):
    idx_str = ids_str[i]
    ret[i] = x[i, :, idx_str:idx_str + segment_size]
  return ret


def rand_slice_segments(x, x_lengths=None, segment_size=4):
  b, d, t = x.size()
  if x_lengths is None:
    x_lengths = t
  ids_str_max = x_lengths - segment_size + 1
  ids_str = (torch.rand([b]) * ids_str_max).to(dtype=torch.long)
  return slice_segments(x, ids_str, segment_size), ids_str


def sequence_mask(length, max_length=None):
  if max_length is None:
    max_length = length.max()
  x = torch.arange(max_length, dtype=length.dtype, device=length.device)
  return x.unsqueeze(0) < length.unsqueeze(1)


def clip_grad_value_(parameters, clip_value, norm_type=2):
  parameters = [p for p in parameters if p.grad is not None]
  total_norm = 0
  for p in parameters:
    param_norm = p.grad.data.norm(norm_type)
    total_norm += param_norm.item() ** norm_type
    if clip_value is not None:
      p.grad.data.clamp_(min=-clip_value, max=clip_value)
  return total_norm ** (1. / norm_type)
