# Source: https://github.com/facebookresearch/pytext/pull/1016
# Shape: the SequenceGenerator after the fix: generate() sets the no_grad context explicitly around the encoder and the greedy search, so the hypothesis dicts the test loop collects hold tensors without history; the loop extends one list with every batch's dicts, which holds only their values.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Seq2Seq(nn.Module):
    def __init__(self, vocab=50, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden, batch_first=True)
        self.decoder = nn.GRUCell(hidden, hidden)
        self.out = nn.Linear(hidden, vocab)

    def encode(self, src_tokens):
        _, h = self.encoder(self.embed(src_tokens))
        return h[0]

    def decode_step(self, prev_tokens, state):
        state = self.decoder(self.embed(prev_tokens), state)
        return F.log_softmax(self.out(state), dim=-1), state


class SequenceGenerator:
    def __init__(self, model, max_len=10, bos=1, eos=2):
        self.model, self.max_len, self.bos, self.eos = model, max_len, bos, eos

    def generate(self, src_tokens):
        with torch.no_grad():
            state = self.model.encode(src_tokens)
            tokens = torch.full((src_tokens.size(0), 1), self.bos, dtype=torch.long)
            positional_scores = []
            for _ in range(self.max_len):
                lprobs, state = self.model.decode_step(tokens[:, -1], state)
                best, next_tokens = lprobs.max(dim=-1)
                positional_scores.append(best)
                tokens = torch.cat([tokens, next_tokens.unsqueeze(1)], dim=1)
            positional_scores = torch.stack(positional_scores, dim=1)
        return [
            {"tokens": tokens[i], "score": positional_scores[i].mean(), "positional_scores": positional_scores[i]}
            for i in range(src_tokens.size(0))
        ]


def test(model, batches):
    model.eval()
    generator = SequenceGenerator(model)
    all_hypos = []
    for src_tokens in batches:
        hypos = generator.generate(src_tokens)
        all_hypos.extend(hypos)
    avg_score = sum(h["score"].item() for h in all_hypos) / len(all_hypos)
    return all_hypos, avg_score


if __name__ == "__main__":
    test(Seq2Seq(), [torch.randint(3, 50, (4, 7)) for _ in range(3)])
