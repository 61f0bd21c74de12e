# Source: https://github.com/pytorch/pytorch/issues/1111
# Shape: a scoring loop runs a small linear model on each input and fills a fresh score vector element by element (scores[k] = out + scores[k]) without backward; the vector is rebuilt at the top of every pass and only the argmax index leaves it, so each pass's graph dies with the next rebinding (the growth in the report was an autograd bug of that release, not a held graph).
# Verdict: clean
import torch
import torch.nn as nn


def best_slots(inputs, n_slots=6):
    layer = nn.Linear(3, n_slots)
    picks = []
    for x in inputs:
        out = layer(x).view(-1)
        scores = torch.zeros(n_slots)
        for k, value in enumerate(out):
            scores[k] = value + scores[k]
        picks.append(int(scores.argmax()))
    return picks


if __name__ == "__main__":
    print(best_slots([torch.randn(1, 3) for _ in range(100_000)])[:10])
