# Source: https://github.com/Eurus-Holmes/MNMT/issues/7
# Shape: a streaming frame classifier carries a smoothed utterance-context vector from chunk to chunk without detaching it, and backward(retain_graph=True) silences the second-backward error, so each step's graph hangs off the next one.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class StreamingTagger(nn.Module):
    """Per-frame phone classifier that sees a leaky-integrated context of everything heard so far."""

    def __init__(self, n_feats=13, d=16, n_phones=5, leak=0.8):
        super().__init__()
        self.enc = nn.Linear(n_feats, d)
        self.out = nn.Linear(2 * d, n_phones)
        self.leak = leak

    def forward(self, chunk, ctx):
        frames = torch.tanh(self.enc(chunk))            # (T, d)
        summary = frames.mean(0)                         # (d,)
        new_ctx = self.leak * ctx + (1 - self.leak) * summary
        joint = torch.cat([frames, new_ctx.expand_as(frames)], dim=-1)
        return self.out(joint), new_ctx


def make_batches(n):
    g = torch.Generator().manual_seed(7)
    return [(torch.randn(12, 13, generator=g), torch.randint(0, 5, (12,), generator=g)) for _ in range(n)]


def run(batches):
    model = StreamingTagger()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    ctx = torch.zeros(16)
    for chunk, labels in batches:
        logits, new_ctx = model(chunk, ctx)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        opt.step()
        ctx = new_ctx
    return loss.item()


if __name__ == "__main__":
    print(run(make_batches(5)))
