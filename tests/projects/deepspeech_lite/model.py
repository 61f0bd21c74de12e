import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class OnlineCMVN(nn.Module):
    """Sequence-wise mean/variance normalisation of the conv features, with running
    statistics for streaming inference (training uses the batch statistics)."""

    def __init__(self, num_features, momentum=0.05, eps=1e-5):
        super(OnlineCMVN, self).__init__()
        self.momentum = momentum
        self.eps = eps
        self.register_buffer("running_stats", torch.stack([torch.zeros(num_features), torch.ones(num_features)]))

    def forward(self, x):  # x: T x N x H
        if self.training:
            mean = x.mean(dim=(0, 1))
            var = x.var(dim=(0, 1), unbiased=False)
            m = self.momentum
            self.running_stats = (1 - m) * self.running_stats + m * torch.stack([mean, var])  # expect: TLK103
        else:
            mean, var = self.running_stats[0], self.running_stats[1]
        return (x - mean) / torch.sqrt(var + self.eps)


class BatchRNN(nn.Module):
    def __init__(self, input_size, hidden_size, rnn_type=nn.GRU):
        super(BatchRNN, self).__init__()
        self.rnn = rnn_type(input_size=input_size, hidden_size=hidden_size, bias=True)

    def forward(self, x, h=None):
        x = x.float()  # recurrent kernels run in fp32 under CPU autocast
        return self.rnn(x, h)


class DeepSpeech(nn.Module):
    def __init__(self, labels, n_freq=32, rnn_hidden_size=64, chunk_size=12):
        super(DeepSpeech, self).__init__()
        self.labels = labels
        self.chunk_size = chunk_size
        num_classes = len(labels)
        self.conv = nn.Sequential(
            nn.Conv2d(1, 8, kernel_size=(5, 3), stride=(2, 1), padding=(2, 1)),
            nn.BatchNorm2d(8),
            nn.Hardtanh(0, 20, inplace=True),
        )
        rnn_input_size = 8 * ((n_freq + 1) // 2)
        self.norm = OnlineCMVN(rnn_input_size)
        self.rnn = BatchRNN(rnn_input_size, rnn_hidden_size)
        self.fc = nn.Linear(rnn_hidden_size, num_classes, bias=False)

    def get_seq_lens(self, input_length):
        return input_length.int()  # time stride is 1

    def forward(self, x, lengths):
        output_lengths = self.get_seq_lens(lengths)
        x = self.conv(x)  # N x C x F x T
        sizes = x.size()
        x = x.view(sizes[0], sizes[1] * sizes[2], sizes[3]).permute(2, 0, 1).contiguous()  # T x N x H
        x = self.norm(x.float())

        # streaming-style recurrence: the GRU sees the utterance chunk by chunk
        outs, hidden = [], None
        for chunk in torch.split(x, self.chunk_size, dim=0):
            y, hidden = self.rnn(chunk, hidden)  # CLEAN: hidden is carried only across chunks of this one forward
            outs.append(y)
        x = torch.cat(outs, 0)
        x = self.fc(x)
        return F.log_softmax(x.float(), dim=-1), output_lengths  # T x N x C
