# Source: https://github.com/huggingface/transformers/issues/3141
# Shape: token-by-token sampling with a pre-trained GPT-2 wrapped in a small Sampler class: the key/value cache returned by each call is stored on self and passed back on the next call, with autograd on (the model is in eval mode, but nothing disables grad), so each step's graph hangs off the growing cache: hundreds of MB per step in the report.
# Verdict: leak
import torch
from transformers import GPT2LMHeadModel


class Sampler:
    def __init__(self, name="gpt2", temperature=1.0):
        self.model = GPT2LMHeadModel.from_pretrained(name)
        self.model.eval()
        self.temperature = temperature
        self.past = None

    def next_token(self, tokens):
        out = self.model(tokens, past_key_values=self.past, use_cache=True)
        self.past = out.past_key_values  # TLK103
        probs = torch.softmax(out.logits[:, -1] / self.temperature, dim=-1)
        return torch.multinomial(probs, 1)

    def sample(self, context, max_len=512, eos_id=50256):
        self.past = None
        tokens = context
        generated = []
        while len(generated) < max_len:
            tokens = self.next_token(tokens)
            generated.append(tokens)
            if (tokens == eos_id).all():
                break
        return torch.cat(generated, dim=1)
