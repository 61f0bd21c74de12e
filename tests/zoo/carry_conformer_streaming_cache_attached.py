# Source: https://github.com/burchim/EfficientConformer/issues/7
# Shape: a speech-recognition service streams audio chunk by chunk through a Conformer encoder whose attention blocks return a per-layer cache of past frames; the transcriber keeps the caches on self and feeds them back with the next chunk, with autograd on, so each cache (sliced to a fixed window, but still graph-attached) chains every earlier chunk's graph and memory grows for the whole session ("the gradient of attention weights and hidden states aren't detached"; torch.no_grad() fixed it).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class StreamingAttentionBlock(nn.Module):
    def __init__(self, dim=144, heads=4, max_cache=64):
        super().__init__()
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.ff = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, 4 * dim), nn.SiLU(), nn.Linear(4 * dim, dim))
        self.norm = nn.LayerNorm(dim)
        self.max_cache = max_cache

    def forward(self, x, hidden=None):
        context = x if hidden is None else torch.cat([hidden, x], dim=1)
        att_out, attention = self.attn(self.norm(x), self.norm(context), self.norm(context))
        x = x + att_out
        x = x + self.ff(x)
        return x, attention, context[:, -self.max_cache:]


class StreamingConformerEncoder(nn.Module):
    def __init__(self, n_mels=80, dim=144, n_layers=4, vocab=256):
        super().__init__()
        self.subsample = nn.Sequential(nn.Conv1d(n_mels, dim, 3, stride=2, padding=1), nn.SiLU())
        self.blocks = nn.ModuleList(StreamingAttentionBlock(dim) for _ in range(n_layers))
        self.head = nn.Linear(dim, vocab)

    def forward(self, mels, hiddens=None):
        x = self.subsample(mels.transpose(1, 2)).transpose(1, 2)
        hiddens = hiddens or [None] * len(self.blocks)
        new_hiddens = []
        for block, hidden in zip(self.blocks, hiddens):
            x, attention, hidden = block(x, hidden)
            new_hiddens.append(hidden)
        return F.log_softmax(self.head(x), dim=-1), new_hiddens


class StreamingTranscriber:
    def __init__(self, model: StreamingConformerEncoder, blank=0):
        self.model = model.eval()
        self.blank = blank
        self.hiddens = None

    def transcribe_chunk(self, mel_chunk):
        log_probs, self.hiddens = self.model(mel_chunk, self.hiddens)  # TLK103
        best = log_probs.argmax(dim=-1).squeeze(0)
        return [t for t in best.tolist() if t != self.blank]

    def reset(self):
        self.hiddens = None


def serve_session(transcriber, mel_chunks):
    tokens = []
    for chunk in mel_chunks:
        tokens.extend(transcriber.transcribe_chunk(chunk))
    transcriber.reset()
    return tokens
