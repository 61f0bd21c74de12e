import torch
import torch.utils.data


class TextMelLoader(torch.utils.data.Dataset):
    """
        Synthetic stand-in for the LJSpeech loader:
        1) makes deterministic (text, mel-spectrogram) pairs from a seed
        2) text is a sequence of symbol ids, mel is a smooth function of it
        Items are ordered paragraph-major: with batch_size B, item i of batch
        k and item i of batch k+1 are consecutive sentences of one paragraph.
    """
    def __init__(self, n_items, hparams, seed=0):
        self.n_items = n_items
        self.n_symbols = hparams.n_symbols
        self.n_mel_channels = hparams.n_mel_channels
        self.min_text_len = hparams.min_text_len
        self.max_text_len = hparams.max_text_len
        self.min_mel_frames = hparams.min_mel_frames
        self.max_mel_frames = hparams.max_mel_frames
        self.seed = seed
        self.length_period = 2 * hparams.batch_size

    def get_mel_text_pair(self, index):
        # lengths repeat every `length_period` items (bucketed corpus), the
        # content is unique per item
        g_len = torch.Generator().manual_seed(self.seed * 100003 + index % self.length_period)
        text_len = int(torch.randint(self.min_text_len, self.max_text_len + 1, (1,), generator=g_len))
        n_frames = int(torch.randint(self.min_mel_frames, self.max_mel_frames + 1, (1,), generator=g_len))
        g = torch.Generator().manual_seed(self.seed * 100003 + index)
        text = torch.randint(1, self.n_symbols, (text_len,), generator=g)
        basis = torch.linspace(0, 3.14159, self.n_mel_channels).unsqueeze(1)
        frames = torch.arange(n_frames, dtype=torch.float32).unsqueeze(0)
        phase = float(text.float().mean()) / self.n_symbols
        mel = torch.sin(basis * (1.0 + phase) + 0.3 * frames) \
            + 0.05 * torch.randn(self.n_mel_channels, n_frames, generator=g)
        return (text, mel)

    def __getitem__(self, index):
        return self.get_mel_text_pair(index)

    def __len__(self):
        return self.n_items


class TextMelCollate():
    """ Zero-pads model inputs and targets based on number of frames per setep
    """
    def __init__(self, n_frames_per_step):
        self.n_frames_per_step = n_frames_per_step

    def __call__(self, batch):
        """Collate's training batch from normalized text and mel-spectrogram
        PARAMS
        ------
        batch: [text_normalized, mel_normalized]
        """
        # Right zero-pad all one-hot text sequences to max input length
        input_lengths, ids_sorted_decreasing = torch.sort(
            torch.LongTensor([len(x[0]) for x in batch]),
            dim=0, descending=True)
        max_input_len = input_lengths[0]

        text_padded = torch.LongTensor(len(batch), max_input_len)
        text_padded.zero_()
        for i in range(len(ids_sorted_decreasing)):
            text = batch[ids_sorted_decreasing[i]][0]
            text_padded[i, :text.size(0)] = text

        # Right zero-pad mel-spec
        num_mels = batch[0][1].size(0)
        max_target_len = max([x[1].size(1) for x in batch])
        if max_target_len % self.n_frames_per_step != 0:
            max_target_len += self.n_frames_per_step - max_target_len % self.n_frames_per_step
            assert max_target_len % self.n_frames_per_step == 0

        # include mel padded and gate padded
        mel_padded = torch.FloatTensor(len(batch), num_mels, max_target_len)
        mel_padded.zero_()
        gate_padded = torch.FloatTensor(len(batch), max_target_len)
        gate_padded.zero_()
        output_lengths = torch.LongTensor(len(batch))
        for i in range(len(ids_sorted_decreasing)):
            mel = batch[ids_sorted_decreasing[i]][1]
            mel_padded[i, :, :mel.size(1)] = mel
            gate_padded[i, mel.size(1)-1:] = 1
            output_lengths[i] = mel.size(1)

        return text_padded, input_lengths, mel_padded, gate_padded, \
            output_lengths
