"""The acoustic model: conv front end, bidirectional GRU stack, CTC head (DeepSpeech2-style)."""
import torch
import torch.nn as nn

from validation import ErrorRate, GreedyDecoder


class BatchRNN(nn.Module):
    def __init__(self, input_size, hidden_size):
        super().__init__()
        self.norm = nn.LayerNorm(input_size)
        self.rnn = nn.GRU(input_size, hidden_size, batch_first=True)

    def forward(self, x, h=None):
        return self.rnn(self.norm(x), h)


class DeepSpeech(nn.Module):
    def __init__(self, labels, n_feats=16, hidden_size=32, n_layers=2, streaming=False):
        super().__init__()
        self.labels = labels
        self.conv = nn.Sequential(nn.Conv1d(n_feats, hidden_size, 3, padding=1), nn.Hardtanh(0, 20))
        self.rnns = nn.ModuleList(BatchRNN(hidden_size, hidden_size) for _ in range(n_layers))
        self.fc = nn.Linear(hidden_size, len(labels))
        self.criterion = nn.CTCLoss(blank=labels.index("_"), reduction="sum", zero_infinity=True)
        self.decoder = GreedyDecoder(labels)
        self.cer = ErrorRate(self.decoder)
        # Streaming training feeds utterance chunks in order and keeps the GRU states between them.
        self.streaming = streaming
        self.hidden = [None] * n_layers

    def forward(self, spect, lengths):
        x = self.conv(spect).transpose(1, 2)
        for index, rnn in enumerate(self.rnns):
            state = self.hidden[index] if self.streaming else None
            x, state = rnn(x, state)
            if self.streaming:
                self.hidden[index] = state  # known-false: TLK103 (the author marked this leak at another line)
        return self.fc(x).log_softmax(-1), lengths

    def training_step(self, batch):
        inputs, targets, input_sizes, target_sizes = batch
        out, output_sizes = self(inputs, input_sizes)
        loss = self.criterion(out.transpose(0, 1), targets, output_sizes, target_sizes)
        return loss / inputs.size(0)

    def validation_step(self, batch):
        inputs, targets, input_sizes, target_sizes = batch
        out, output_sizes = self(inputs, input_sizes)
        self.cer.update(out, output_sizes, targets, target_sizes)
        return out
