import math
import random

import torch
import torch.utils.data

MAX_WAV_VALUE = 32768.0


def load_wav(full_path, segment_len=4096, sampling_rate=8000):
    """Synthetic stand-in for scipy.io.wavfile.read: a deterministic chirp per utterance id."""
    seed = sum(ord(c) for c in full_path)
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(segment_len, dtype=torch.float32) / sampling_rate
    f0 = 110.0 + 300.0 * torch.rand(1, generator=g).item()
    data = 0.5 * torch.sin(2 * math.pi * f0 * t * (1.0 + 0.5 * t))
    data = data + 0.01 * torch.randn(segment_len, generator=g)
    return (data * MAX_WAV_VALUE * 0.9).to(torch.int16), sampling_rate


def normalize(x):
    return x / (x.abs().max() + 1e-8) * 0.95


def dynamic_range_compression_torch(x, C=1, clip_val=1e-5):
    return torch.log(torch.clamp(x, min=clip_val) * C)


def dynamic_range_decompression_torch(x, C=1):
    return torch.exp(x) / C


def spectral_normalize_torch(magnitudes):
    output = dynamic_range_compression_torch(magnitudes)
    return output


def spectral_de_normalize_torch(magnitudes):
    output = dynamic_range_decompression_torch(magnitudes)
    return output


def librosa_mel_fn(sr, n_fft, n_mels, fmin, fmax):
    """Triangular mel filterbank (HTK formula), same shape as librosa.filters.mel."""
    fmax = fmax or sr / 2
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)
    mels = torch.linspace(hz_to_mel(fmin), hz_to_mel(fmax), n_mels + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    fftfreqs = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    weights = torch.zeros(n_mels, n_fft // 2 + 1)
    for i in range(n_mels):
        lower = (fftfreqs - hz[i]) / (hz[i + 1] - hz[i])
        upper = (hz[i + 2] - fftfreqs) / (hz[i + 2] - hz[i + 1])
        weights[i] = torch.clamp(torch.minimum(lower, upper), min=0)
    return weights


mel_basis = {}
hann_window = {}


def mel_spectrogram(y, n_fft, num_mels, sampling_rate, hop_size, win_size, fmin, fmax, center=False):
    if torch.min(y) < -1.:
        print('min value is ', torch.min(y))
    if torch.max(y) > 1.:
        print('max value is ', torch.max(y))

    global mel_basis, hann_window
    key = str(fmax)+'_'+str(y.device)
    if key not in mel_basis:
        mel = librosa_mel_fn(sampling_rate, n_fft, num_mels, fmin, fmax)
        mel_basis[key] = mel.float().to(y.device)
        hann_window[str(y.device)] = torch.hann_window(win_size).to(y.device)

    y = torch.nn.functional.pad(y.unsqueeze(1), (int((n_fft-hop_size)/2), int((n_fft-hop_size)/2)), mode='reflect')
    y = y.squeeze(1)

    spec = torch.stft(y, n_fft, hop_length=hop_size, win_length=win_size, window=hann_window[str(y.device)],
                      center=center, pad_mode='reflect', normalized=False, onesided=True, return_complex=True)
    spec = torch.view_as_real(spec)

    spec = torch.sqrt(spec.pow(2).sum(-1)+(1e-9))

    spec = torch.matmul(mel_basis[key], spec)
    spec = spectral_normalize_torch(spec)

    return spec


def get_dataset_filelist(n_train=16, n_valid=2):
    training_files = ['LJ001-{:04d}.wav'.format(i) for i in range(n_train)]
    validation_files = ['LJ050-{:04d}.wav'.format(i) for i in range(n_valid)]
    return training_files, validation_files


class MelDataset(torch.utils.data.Dataset):
    def __init__(self, training_files, segment_size, n_fft, num_mels,
                 hop_size, win_size, sampling_rate,  fmin, fmax, split=True, shuffle=True, n_cache_reuse=1,
                 device=None, fmax_loss=None):
        self.audio_files = training_files
        random.seed(1234)
        if shuffle:
            random.shuffle(self.audio_files)
        self.segment_size = segment_size
        self.sampling_rate = sampling_rate
        self.split = split
        self.n_fft = n_fft
        self.num_mels = num_mels
        self.hop_size = hop_size
        self.win_size = win_size
        self.fmin = fmin
        self.fmax = fmax
        self.fmax_loss = fmax_loss
        self.cached_wav = None
        self.n_cache_reuse = n_cache_reuse
        self._cache_ref_count = 0
        self.device = device

    def __getitem__(self, index):
        filename = self.audio_files[index]
        if self._cache_ref_count == 0:
            audio, sampling_rate = load_wav(filename, sampling_rate=self.sampling_rate)
            audio = audio.float() / MAX_WAV_VALUE
            audio = normalize(audio) * 0.95
            self.cached_wav = audio
            self._cache_ref_count = self.n_cache_reuse
        else:
            audio = self.cached_wav
            self._cache_ref_count -= 1

        audio = audio.unsqueeze(0)

        if self.split:
            if audio.size(1) >= self.segment_size:
                max_audio_start = audio.size(1) - self.segment_size
                audio_start = random.randint(0, max_audio_start)
                audio = audio[:, audio_start:audio_start+self.segment_size]
            else:
                audio = torch.nn.functional.pad(audio, (0, self.segment_size - audio.size(1)), 'constant')

        mel = mel_spectrogram(audio, self.n_fft, self.num_mels, self.sampling_rate, self.hop_size, self.win_size,
                              self.fmin, self.fmax, center=False)
        mel_loss = mel_spectrogram(audio, self.n_fft, self.num_mels, self.sampling_rate, self.hop_size, self.win_size,
                                   self.fmin, self.fmax_loss, center=False)

        return (mel.squeeze(), audio.squeeze(0), filename, mel_loss.squeeze())

    def __len__(self):
        return len(self.audio_files)
