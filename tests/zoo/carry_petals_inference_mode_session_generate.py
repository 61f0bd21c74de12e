# Source: https://github.com/bigscience-workshop/petals/pull/177
# Shape: a generate() method decorated with @torch.inference_mode() opens an inference session object whose step() runs the transformer block on the new token, stores the updated (sliding-window) key/value cache on self and returns hidden states that the loop turns into the next token; state is fed back on every step, but under inference_mode nothing records a graph, so nothing chains from step to step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 200


class Block(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x, past=None):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        if past is not None:
            k = torch.cat([past[0], k], dim=1)
            v = torch.cat([past[1], v], dim=1)
        att = torch.softmax(q @ k.transpose(1, 2) / k.size(-1) ** 0.5, dim=-1)
        h = x + self.out(att @ v)
        return h + self.mlp(h), (k, v)


class InferenceSession:
    def __init__(self, block, window=32):
        self.block = block
        self.window = window
        self._past = None
        self._position = 0

    def step(self, hidden):
        out, (k, v) = self.block(hidden, self._past)
        self._past = (k[:, -self.window:], v[:, -self.window:])
        self._position += hidden.size(1)
        return out


class DistributedLM(nn.Module):
    def __init__(self, vocab=128, dim=64):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.block = Block(dim)
        self.lm_head = nn.Linear(dim, vocab)

    def inference_session(self):
        return InferenceSession(self.block)

    @torch.inference_mode()
    def generate(self, input_ids, max_new_tokens):
        session = self.inference_session()
        hidden = session.step(self.embed(input_ids))
        generated = [input_ids]
        for _ in range(max_new_tokens):
            logits = self.lm_head(hidden[:, -1])
            next_token = torch.multinomial(F.softmax(logits, dim=-1), 1)
            generated.append(next_token)
            hidden = session.step(self.embed(next_token))
        return torch.cat(generated, dim=1)


model = DistributedLM()
tokens = model.generate(torch.randint(0, 128, (2, 8)), max_new_tokens=STEPS)
print(tokens.shape)
