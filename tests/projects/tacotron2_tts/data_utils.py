import torch
import torch.utils.data


class TextMelLoader(torch.utils.data.Dataset):
    """
        1) synthesises deterministic (text, mel, speaker) triples
        2) normalizes text and converts them to sequences of integers
        3) computes mel-spectrograms from the text (a smooth deterministic map)
    """
    def __init__(self, hparams, seed=0):
        self.n_mel_channels = hparams.n_mel_channels
        self.n_symbols = hparams.n_symbols
        self.frames_per_char = hparams.frames_per_char
        g = torch.Generator().manual_seed(seed)
        self.items = []
        for _ in range(hparams.n_utterances):
            length = int(torch.randint(hparams.min_text_len, hparams.max_text_len + 1, (1,), generator=g))
            text = torch.randint(1, hparams.n_symbols, (length,), generator=g)
            speaker = int(torch.randint(hparams.n_speakers, (1,), generator=g))
            self.items.append((text, speaker))

    def get_mel(self, text, speaker):
        frames = text.repeat_interleave(self.frames_per_char).float()
        t = torch.arange(frames.numel()).float()
        bins = torch.arange(self.n_mel_channels).float()[:, None]
        mel = torch.sin(bins * 0.3 + frames[None] * 0.7 + 0.05 * t[None]) * 0.5
        return mel + 0.1 * speaker

    def get_mel_text_pair(self, item):
        text, speaker = item
        return (text, self.get_mel(text, speaker), speaker)

    def __getitem__(self, index):
        return self.get_mel_text_pair(self.items[index])

    def __len__(self):
        return len(self.items)


class TextMelCollate():
    """ Zero-pads model inputs and targets based on number of frames per setep
    """
    def __init__(self, n_frames_per_step):
        self.n_frames_per_step = n_frames_per_step

    def __call__(self, batch):
        """Collate's training batch from normalized text and mel-spectrogram
        PARAMS
        ------
        batch: [text_normalized, mel_normalized, speaker_id]
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
        speaker_ids = torch.LongTensor(len(batch))
        for i in range(len(ids_sorted_decreasing)):
            mel = batch[ids_sorted_decreasing[i]][1]
            mel_padded[i, :, :mel.size(1)] = mel
            gate_padded[i, mel.size(1)-1:] = 1
            output_lengths[i] = mel.size(1)
            speaker_ids[i] = batch[ids_sorted_decreasing[i]][2]

        return text_padded, input_lengths, mel_padded, gate_padded, \
            output_lengths, speaker_ids
