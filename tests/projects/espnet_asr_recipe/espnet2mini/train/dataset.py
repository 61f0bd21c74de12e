"""Synthetic "tone speech" corpus: each token is a short tone burst at its own frequency."""
import math
from typing import Dict, List, Tuple

import torch


class ToneSpeechDataset(torch.utils.data.Dataset):
    def __init__(self, num_utts: int, token_list: List[str], fs: int = 8000,
                 seg_samples: int = 400, min_tokens: int = 3, max_tokens: int = 6, seed: int = 0):
        self.fs = fs
        self.token_list = token_list
        # ids 0 (<blank>) and 1 (<unk>) and the last one (<sos/eos>) never appear in text
        self.n_real = len(token_list) - 3
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for i in range(num_utts):
            n = int(torch.randint(min_tokens, max_tokens + 1, (1,), generator=g))
            ids = torch.randint(0, self.n_real, (n,), generator=g) + 2
            noise = 0.05 * torch.randn(n * seg_samples, generator=g)
            t = torch.arange(seg_samples, dtype=torch.float32) / fs
            segs = []
            for k in ids.tolist():
                f0 = 300.0 + 150.0 * (k - 2)
                segs.append(torch.sin(2 * math.pi * f0 * t) * torch.hann_window(seg_samples))
            wav = torch.cat(segs) + noise
            self.items.append((f"utt{i:04d}", wav, ids))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, idx):
        return self.items[idx]


class CommonCollateFn:
    """Functor class of common_collate_fn()"""

    def __init__(self, float_pad_value: float = 0.0, int_pad_value: int = -1):
        self.float_pad_value = float_pad_value
        self.int_pad_value = int_pad_value

    def __call__(self, data) -> Tuple[List[str], Dict[str, torch.Tensor]]:
        uttids = [u for u, _, _ in data]
        speech = [s for _, s, _ in data]
        text = [t for _, _, t in data]
        speech_lengths = torch.tensor([len(s) for s in speech], dtype=torch.long)
        text_lengths = torch.tensor([len(t) for t in text], dtype=torch.long)
        speech_pad = torch.full((len(data), int(speech_lengths.max())), self.float_pad_value)
        text_pad = torch.full((len(data), int(text_lengths.max())), self.int_pad_value, dtype=torch.long)
        for i, (s, t) in enumerate(zip(speech, text)):
            speech_pad[i, : len(s)] = s
            text_pad[i, : len(t)] = t
        return uttids, {
            "speech": speech_pad,
            "speech_lengths": speech_lengths,
            "text": text_pad,
            "text_lengths": text_lengths,
        }
