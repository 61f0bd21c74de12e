# Layout modelled on yunjey/pytorch-tutorial (tutorials/03-advanced/image_captioning): the
# decoder's greedy sampler lives in models.py, and the script that captions an image calls it
# from another module. Written for this test, not copied.
import torch
from torch import nn


class CaptionDecoder(nn.Module):
    def __init__(self, embed_size, hidden_size, vocab_size, max_len=20):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.LSTM(embed_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)
        self.max_len = max_len

    def forward(self, features, captions):
        tokens = torch.cat((features.unsqueeze(1), self.embedding(captions)), 1)
        hiddens, _ = self.rnn(tokens)
        return self.head(hiddens)

    def greedy(self, features, state=None):
        words = []
        step_input = features.unsqueeze(1)
        for _ in range(self.max_len):
            hiddens, state = self.rnn(step_input, state)  # expect: TLK103
            word = self.head(hiddens.squeeze(1)).argmax(1)
            words.append(word)
            step_input = self.embedding(word).unsqueeze(1)
        return torch.stack(words, 1)


class BeamDecoder(nn.Module):
    """The same sampler, called only under torch.no_grad() by its importer: silent."""

    def __init__(self, embed_size, hidden_size, vocab_size, max_len=20):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_size)
        self.rnn = nn.LSTM(embed_size, hidden_size, batch_first=True)
        self.head = nn.Linear(hidden_size, vocab_size)
        self.max_len = max_len

    def forward(self, features, captions):
        tokens = torch.cat((features.unsqueeze(1), self.embedding(captions)), 1)
        hiddens, _ = self.rnn(tokens)
        return self.head(hiddens)

    def greedy(self, features, state=None):
        words = []
        step_input = features.unsqueeze(1)
        for _ in range(self.max_len):
            hiddens, state = self.rnn(step_input, state)
            word = self.head(hiddens.squeeze(1)).argmax(1)
            words.append(word)
            step_input = self.embedding(word).unsqueeze(1)
        return torch.stack(words, 1)
