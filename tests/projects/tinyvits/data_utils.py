import math
import random
import torch
import torch.utils.data

from mel_processing import spectrogram_torch


class TextAudioLoader(torch.utils.data.Dataset):
  """
  Synthetic stand-in for LJSpeech: every "phoneme" id is rendered as a short
  tone, so text, spectrogram and waveform are consistent with each other.
  Returns (text, spec, wav) like the original loader.
  """
  def __init__(self, num_utterances, hparams, seed=1234):
    self.hparams = hparams
    self.sampling_rate = hparams.sampling_rate
    self.filter_length = hparams.filter_length
    self.hop_length = hparams.hop_length
    self.win_length = hparams.win_length
    self.frames_per_token = hparams.frames_per_token
    g = torch.Generator().manual_seed(seed)
    self.texts = [torch.randint(1, hparams.n_vocab, (hparams.text_len,), generator=g) for _ in range(num_utterances)]
    self.cache = {}

  def render(self, text):
    samples_per_token = self.frames_per_token * self.hop_length
    t = torch.arange(samples_per_token).float() / self.sampling_rate
    chunks = []
    for tok in text.tolist():
      f0 = 200.0 + 90.0 * tok
      env = torch.hann_window(samples_per_token, periodic=False) * 0.5 + 0.5
      chunks.append(0.5 * env * torch.sin(2 * math.pi * f0 * t))
    return torch.cat(chunks)

  def get_audio_text_pair(self, index):
    if index in self.cache:
      return self.cache[index]
    text = self.texts[index]
    audio_norm = self.render(text).unsqueeze(0)
    spec = spectrogram_torch(audio_norm, self.filter_length, self.sampling_rate, self.hop_length,
                             self.win_length, center=False)
    spec = torch.squeeze(spec, 0)
    item = (text, spec, audio_norm)
    self.cache[index] = item
    return item

  def __getitem__(self, index):
    return self.get_audio_text_pair(index)

  def __len__(self):
    return len(self.texts)


class TextAudioCollate():
  """ Zero-pads model inputs and targets
  """
  def __init__(self, return_ids=False):
    self.return_ids = return_ids

  def __call__(self, batch):
    _, ids_sorted_decreasing = torch.sort(
        torch.LongTensor([x[1].size(1) for x in batch]),
        dim=0, descending=True)

    max_text_len = max([len(x[0]) for x in batch])
    max_spec_len = max([x[1].size(1) for x in batch])
    max_wav_len = max([x[2].size(1) for x in batch])

    text_lengths = torch.LongTensor(len(batch))
    spec_lengths = torch.LongTensor(len(batch))
    wav_lengths = torch.LongTensor(len(batch))

    text_padded = torch.LongTensor(len(batch), max_text_len)
    spec_padded = torch.FloatTensor(len(batch), batch[0][1].size(0), max_spec_len)
    wav_padded = torch.FloatTensor(len(batch), 1, max_wav_len)
    text_padded.zero_()
    spec_padded.zero_()
    wav_padded.zero_()
    for i in range(len(ids_sorted_decreasing)):
      row = batch[ids_sorted_decreasing[i]]

      text = row[0]
      text_padded[i, :text.size(0)] = text
      text_lengths[i] = text.size(0)

      spec = row[1]
      spec_padded[i, :, :spec.size(1)] = spec
      spec_lengths[i] = spec.size(1)

      wav = row[2]
      wav_padded[i, :, :wav.size(1)] = wav
      wav_lengths[i] = wav.size(1)

    if self.return_ids:
      return text_padded, text_lengths, spec_padded, spec_lengths, wav_padded, wav_lengths, ids_sorted_decreasing
    return text_padded, text_lengths, spec_padded, spec_lengths, wav_padded, wav_lengths
