# Source: https://github.com/OpenNMT/OpenNMT-py/issues/403
# Shape: truncated BPTT over long targets: the decoder keeps its recurrent state in a small state object that the trainer hands from one target chunk to the next, and the object's detach() was rewritten as h.detach() on each tensor without storing the results, so it detaches nothing; every chunk's backward(retain_graph=True) then runs back through all the earlier chunks of the batch.
# Verdict: leak
import torch
import torch.nn as nn


class RNNDecoderState:
    def __init__(self, hidden, input_feed):
        self.hidden = hidden
        self.input_feed = input_feed

    @property
    def _all(self):
        return self.hidden + (self.input_feed,)

    def detach(self):
        for h in self._all:
            h.detach()

    def update_state(self, hidden, input_feed):
        self.hidden = hidden
        self.input_feed = input_feed


class InputFeedDecoder(nn.Module):
    def __init__(self, vocab, emb=256, hid=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, emb)
        self.cell = nn.LSTMCell(emb + hid, hid)
        self.out = nn.Linear(hid, vocab)

    def forward(self, tgt, state):
        h, c = state.hidden
        feed = state.input_feed
        logits = []
        for tok in tgt.unbind(0):
            h, c = self.cell(torch.cat([self.embed(tok), feed], 1), (h, c))
            feed = h
            logits.append(self.out(h))
        return torch.stack(logits), (h, c), feed


def train_batch(decoder, optimizer, tgt, state, trunc_size=20):
    criterion = nn.CrossEntropyLoss()
    for j in range(0, tgt.size(0) - 1, trunc_size):
        gold = tgt[j + 1:j + 1 + trunc_size]
        chunk = tgt[j:j + gold.size(0)]
        state.detach()
        logits, hidden, feed = decoder(chunk, state)
        state.update_state(hidden, feed)
        loss = criterion(logits.reshape(-1, logits.size(-1)), gold.reshape(-1))
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
