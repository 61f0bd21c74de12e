# Source: https://github.com/warmspringwinds/pytorch-rnn-sequence-generation-classification/blob/master/notebooks/truncated_backprop_music_generation.ipynb
# Shape: The carried LSTM state is repackaged (detached) before every chunk, as in truncated BPTT, so each chunk's backward stops at the chunk boundary and needs no retain_graph; gradients still accumulate over the song and the @torch.no_grad() sampler carries its own hidden state without a graph.
# Verdict: clean
"""Note-level piano-roll RNN trained on long pieces split into chunks
(truncated BPTT notebook): notes encoder -> 2-layer LSTM -> per-pitch logits,
hidden state carried across the chunks of a song, gradients clipped and the
optimizer stepped once per song.
"""
from types import SimpleNamespace

import torch
import torch.nn as nn

cfg = SimpleNamespace(n_pitches=48, hidden_size=64, n_layers=2, batch_size=4, chunk_len=16,
                      chunks_per_song=64, lr=1e-3, clip=1.0, log_every=10)


class RNN(nn.Module):
    def __init__(self, input_size, hidden_size, num_classes, n_layers=2):
        super(RNN, self).__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_classes = num_classes
        self.n_layers = n_layers
        self.notes_encoder = nn.Linear(in_features=input_size, out_features=hidden_size)
        self.lstm = nn.LSTM(hidden_size, hidden_size, n_layers)
        self.logits_fc = nn.Linear(hidden_size, num_classes)

    def forward(self, input_sequences, hidden=None):
        notes_encoded = self.notes_encoder(input_sequences)
        outputs, hidden = self.lstm(notes_encoded, hidden)
        logits = self.logits_fc(outputs)
        return logits, hidden


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if h is None:
        return None
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


# --------------------------------------------------------------------------
# data: long synthetic "pieces" (arpeggiated chords), served chunk by chunk
# --------------------------------------------------------------------------
def make_song_batch(batch_size, n_steps, n_pitches, g):
    roll = torch.zeros(n_steps + 1, batch_size, n_pitches)
    for b in range(batch_size):
        root = int(torch.randint(0, n_pitches - 12, (1,), generator=g))
        period = int(torch.randint(2, 6, (1,), generator=g))
        for t in range(n_steps + 1):
            chord = [root, root + 4, root + 7]
            roll[t, b, chord[(t // period) % 3]] = 1.0
            if t % (period * 8) == 0:
                root = (root + 5) % (n_pitches - 12)
    return roll


def make_batches(n_chunks, seed=0):
    """Yield (inputs, targets, new_song) chunks of shape [chunk_len, batch, pitches]."""
    g = torch.Generator().manual_seed(seed)
    emitted = 0
    while emitted < n_chunks:
        song = make_song_batch(cfg.batch_size, cfg.chunk_len * cfg.chunks_per_song, cfg.n_pitches, g)
        for c in range(cfg.chunks_per_song):
            if emitted == n_chunks:
                return
            s = c * cfg.chunk_len
            yield song[s:s + cfg.chunk_len], song[s + 1:s + 1 + cfg.chunk_len], c == 0
            emitted += 1


class SongTrainer(object):
    """Chunked full-song BPTT: gradients are accumulated over the chunks of a
    song and the optimizer steps once the song is over."""

    def __init__(self, rnn, criterion, optimizer):
        self.rnn = rnn
        self.criterion = criterion
        self.optimizer = optimizer
        self.hidden = None
        self.pending_chunks = 0
        self.losses = []

    def train_chunk(self, inputs, targets, new_song):
        if new_song:
            if self.pending_chunks:
                self.update()
            self.hidden = None
        else:
            self.hidden = repackage_hidden(self.hidden)
        logits, self.hidden = self.rnn(inputs, self.hidden)
        loss = self.criterion(logits, targets)
        loss.backward()
        self.pending_chunks += 1
        self.losses.append(loss.item())
        return loss.item()

    def update(self):
        torch.nn.utils.clip_grad_norm_(self.rnn.parameters(), cfg.clip)
        self.optimizer.step()
        self.optimizer.zero_grad()
        self.pending_chunks = 0

    def finish(self):
        if self.pending_chunks:
            self.update()


@torch.no_grad()
def sample_from_piano_rnn(rnn, sample_length=32, temperature=1.0, g=None):
    current = torch.zeros(1, 1, cfg.n_pitches)
    current[0, 0, 10] = 1
    final_output_sequence = [current.squeeze(1)]
    hidden = None
    for _ in range(sample_length):
        output, hidden = rnn(current, hidden)
        probabilities = torch.sigmoid(output.div(temperature))
        current = torch.bernoulli(probabilities, generator=g)
        final_output_sequence.append(current.squeeze(1))
    return torch.cat(final_output_sequence, dim=0)


def run(steps):
    torch.manual_seed(0)
    rnn = RNN(input_size=cfg.n_pitches, hidden_size=cfg.hidden_size, num_classes=cfg.n_pitches,
              n_layers=cfg.n_layers)
    criterion = nn.BCEWithLogitsLoss()
    optimizer = torch.optim.Adam(rnn.parameters(), lr=cfg.lr)
    trainer = SongTrainer(rnn, criterion, optimizer)
    for i, (inputs, targets, new_song) in enumerate(make_batches(steps)):
        loss = trainer.train_chunk(inputs, targets, new_song)
        if i % cfg.log_every == 0:
            print("chunk %d loss %.4f" % (i, loss))
    trainer.finish()
    sample = sample_from_piano_rnn(rnn, g=torch.Generator().manual_seed(1))
    return {"trainer": trainer, "sample": sample}


if __name__ == "__main__":
    run(10)
