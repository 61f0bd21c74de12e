# Source: https://github.com/espnet/espnet/pull/638
# Shape: the streaming encoder propagates its context state (prev_state) between consecutive audio chunks without detaching it, and the per-chunk CTC loss is backwarded with retain_graph=True to silence the "backward through the graph a second time" error, so every chunk's encoder graph stays chained to the carried state.
# Verdict: leak
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

N_STREAMS = 4
CHUNK = 16
IDIM = 16
ODIM = 10  # blank = 0


class RNNP(nn.Module):
    """Streaming encoder: frame embedding + leaky-integrated utterance context + LSTM.

    The context vector is the encoder state that is propagated from chunk to chunk.
    """

    def __init__(self, idim, elayers, cdim, hdim):
        super().__init__()
        self.embed = nn.Linear(idim, cdim)
        self.decay_logit = nn.Parameter(torch.tensor(2.0))
        self.nbrnn = nn.LSTM(cdim, cdim, num_layers=elayers, batch_first=True)
        self.l_last = nn.Linear(cdim, hdim)

    def forward(self, xs_pad, ilens, prev_state=None):
        emb = torch.relu(self.embed(xs_pad))
        decay = torch.sigmoid(self.decay_logit)
        ctx = emb.mean(1)
        if prev_state is not None:
            ctx = decay * prev_state + (1.0 - decay) * ctx
        ys, _ = self.nbrnn(emb + ctx.unsqueeze(1))
        projected = torch.tanh(self.l_last(ys.contiguous().view(-1, ys.size(2))))
        xs_pad = projected.view(ys.size(0), ys.size(1), -1)
        return xs_pad, ilens, ctx


class CTC(nn.Module):
    def __init__(self, odim, eprojs):
        super().__init__()
        self.ctc_lo = nn.Linear(eprojs, odim)

    def log_softmax(self, hs_pad):
        return F.log_softmax(self.ctc_lo(hs_pad), dim=2)

    def forward(self, hs_pad, hlens, ys_pad, ylens):
        lp = self.log_softmax(hs_pad).transpose(0, 1)
        return F.ctc_loss(lp, ys_pad, hlens, ylens, blank=0, reduction="mean", zero_infinity=True)


class StreamingE2E(nn.Module):
    def __init__(self, idim=IDIM, odim=ODIM, eunits=64, eprojs=32):
        super().__init__()
        self.enc = RNNP(idim, 1, eunits, eprojs)
        self.ctc = CTC(odim, eprojs)
        self._encoder_state = None

    def reset(self):
        self._encoder_state = None

    def forward_chunk(self, xs_pad, ilens, ys_pad, ylens):
        hs_pad, hlens, states = self.enc(xs_pad, ilens, prev_state=self._encoder_state)
        self._encoder_state = states
        return self.ctc(hs_pad, hlens, ys_pad, ylens)


class StreamCorpus:
    """A few long recordings cut into consecutive chunks (one chunk per stream per step)."""

    def __init__(self, n_chunks=64):
        g = torch.Generator().manual_seed(7)
        self.feats = torch.randn(N_STREAMS, n_chunks * CHUNK, IDIM, generator=g)
        self.labels = torch.randint(1, ODIM, (N_STREAMS, n_chunks, 3), generator=g)

    def chunk(self, k):
        xs = self.feats[:, k * CHUNK:(k + 1) * CHUNK]
        ys = self.labels[:, k]
        return xs, torch.full((N_STREAMS,), CHUNK, dtype=torch.long), ys, torch.full((N_STREAMS,), 3, dtype=torch.long)


class CustomUpdater:
    def __init__(self, model, optimizer, grad_clip=5.0):
        self.model = model
        self.optimizer = optimizer
        self.grad_clip = grad_clip
        self.iteration = 0

    def update(self, batch):
        xs, ilens, ys, ylens = batch
        loss = self.model.forward_chunk(xs, ilens, ys, ylens)
        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.grad_clip)
        self.optimizer.step()
        self.iteration += 1
        return loss.item()


def make_batches(n):
    return [k % 64 for k in range(n)]


def run(batches):
    torch.manual_seed(0)
    corpus = StreamCorpus()
    model = StreamingE2E()
    optimizer = torch.optim.Adadelta(model.parameters(), rho=0.95, eps=1e-8)
    updater = CustomUpdater(model, optimizer)
    model.train()
    model.reset()
    losses = []
    for k in batches:
        losses.append(updater.update(corpus.chunk(k)))
    return losses
