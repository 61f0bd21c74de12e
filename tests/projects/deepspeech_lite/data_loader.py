import torch
from torch.utils.data import Dataset, DataLoader

LABELS = "_abcde"  # index 0 is the CTC blank


class SpectrogramDataset(Dataset):
    """Synthetic stand-in for the manifest-backed dataset: every character owns a
    frequency band, an utterance is a sequence of characters rendered as band energy."""

    def __init__(self, size=640, n_freq=32, frames_per_char=8, min_chars=3, max_chars=5, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.items = []
        n_chars = len(LABELS) - 1
        band = n_freq // n_chars
        for idx in range(size):
            L = int(torch.randint(min_chars, max_chars + 1, (1,), generator=g))
            transcript = torch.randint(1, n_chars + 1, (L,), generator=g)
            spect = 0.3 * torch.randn(n_freq, L * frames_per_char + 4, generator=g)
            for j, c in enumerate(transcript.tolist()):
                s = 2 + j * frames_per_char
                spect[(c - 1) * band:c * band, s:s + frames_per_char - 2] += 1.5
            self.items.append((spect, transcript, idx))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, index):
        return self.items[index]


def _collate_fn(batch):
    batch = sorted(batch, key=lambda sample: sample[0].size(1), reverse=True)
    freq_size = batch[0][0].size(0)
    max_seqlength = batch[0][0].size(1)
    minibatch_size = len(batch)
    inputs = torch.zeros(minibatch_size, 1, freq_size, max_seqlength)
    input_percentages = torch.FloatTensor(minibatch_size)
    target_sizes = torch.IntTensor(minibatch_size)
    targets = []
    indices = []
    for x, (tensor, target, idx) in enumerate(batch):
        seq_length = tensor.size(1)
        inputs[x][0].narrow(1, 0, seq_length).copy_(tensor)
        input_percentages[x] = seq_length / float(max_seqlength)
        target_sizes[x] = len(target)
        targets.append(target)
        indices.append(idx)
    targets = torch.cat(targets).int()
    return inputs, targets, input_percentages, target_sizes, torch.tensor(indices)


class AudioDataLoader(DataLoader):
    def __init__(self, *args, **kwargs):
        super(AudioDataLoader, self).__init__(*args, **kwargs)
        self.collate_fn = _collate_fn
