import math
import torch
import torch.utils.data

MAX_WAV_VALUE = 32768.0

mel_basis = {}
hann_window = {}


def dynamic_range_compression_torch(x, C=1, clip_val=1e-5):
  return torch.log(torch.clamp(x, min=clip_val) * C)


def spectral_normalize_torch(magnitudes):
  return dynamic_range_compression_torch(magnitudes)


def _hz_to_mel(f):
  return 2595.0 * math.log10(1.0 + f / 700.0)


def _mel_to_hz(m):
  return 700.0 * (10 ** (m / 2595.0) - 1.0)


def librosa_mel_fn(sr, n_fft, n_mels, fmin, fmax):
  """Triangular HTK mel filterbank, [n_mels, n_fft // 2 + 1] (librosa-free)."""
  fmax = fmax or sr / 2.0
  n_freqs = n_fft // 2 + 1
  fft_freqs = torch.linspace(0, sr / 2.0, n_freqs)
  mel_pts = torch.linspace(_hz_to_mel(fmin), _hz_to_mel(fmax), n_mels + 2)
  hz_pts = torch.tensor([_mel_to_hz(m.item()) for m in mel_pts])
  fb = torch.zeros(n_mels, n_freqs)
  for i in range(n_mels):
    lo, ce, hi = hz_pts[i], hz_pts[i + 1], hz_pts[i + 2]
    up = (fft_freqs - lo) / (ce - lo)
    down = (hi - fft_freqs) / (hi - ce)
    fb[i] = torch.clamp(torch.min(up, down), min=0)
  return fb


def spectrogram_torch(y, n_fft, sampling_rate, hop_size, win_size, center=False):
  global hann_window
  dtype_device = str(y.dtype) + '_' + str(y.device)
  wnsize_dtype_device = str(win_size) + '_' + dtype_device
  if wnsize_dtype_device not in hann_window:
    hann_window[wnsize_dtype_device] = torch.hann_window(win_size).to(dtype=y.dtype, device=y.device)

  y = torch.nn.functional.pad(y.unsqueeze(1), (int((n_fft-hop_size)/2), int((n_fft-hop_size)/2)), mode='reflect')
  y = y.squeeze(1)

  spec = torch.stft(y, n_fft, hop_length=hop_size, win_length=win_size, window=hann_window[wnsize_dtype_device],
                    center=center, pad_mode='reflect', normalized=False, onesided=True, return_complex=True)
  spec = torch.sqrt(spec.real.pow(2) + spec.imag.pow(2) + 1e-6)
  return spec


def spec_to_mel_torch(spec, n_fft, num_mels, sampling_rate, fmin, fmax):
  global mel_basis
  dtype_device = str(spec.dtype) + '_' + str(spec.device)
  fmax_dtype_device = str(fmax) + '_' + dtype_device
  if fmax_dtype_device not in mel_basis:
    mel = librosa_mel_fn(sampling_rate, n_fft, num_mels, fmin, fmax)
    mel_basis[fmax_dtype_device] = mel.to(dtype=spec.dtype, device=spec.device)
  spec = torch.matmul(mel_basis[fmax_dtype_device], spec)
  spec = spectral_normalize_torch(spec)
  return spec


def mel_spectrogram_torch(y, n_fft, num_mels, sampling_rate, hop_size, win_size, fmin, fmax, center=False):
  spec = spectrogram_torch(y, n_fft, sampling_rate, hop_size, win_size, center=center)
  return spec_to_mel_torch(spec, n_fft, num_mels, sampling_rate, fmin, fmax)
