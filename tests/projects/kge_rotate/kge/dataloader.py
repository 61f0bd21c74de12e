"""Synthetic triples plus head-/tail-batch negative sampling iterators."""
import torch


def make_triples(nentity=40, nrelation=4, n=400, seed=0):
    g = torch.Generator().manual_seed(seed)
    h = torch.randint(0, nentity, (n,), generator=g)
    r = torch.randint(0, nrelation, (n,), generator=g)
    t = (h * 3 + r * 7) % nentity
    return torch.stack([h, r, t], dim=1)


class TrainDataset:
    def __init__(self, triples, nentity, negative_size, mode, batch_size, seed=0):
        self.triples = triples
        self.nentity = nentity
        self.negative_size = negative_size
        self.mode = mode
        self.batch_size = batch_size
        self.g = torch.Generator().manual_seed(seed)

    def __iter__(self):
        while True:
            perm = torch.randperm(len(self.triples), generator=self.g)
            for i in range(0, len(perm) - self.batch_size + 1, self.batch_size):
                pos = self.triples[perm[i:i + self.batch_size]]
                neg = torch.randint(0, self.nentity, (self.batch_size, self.negative_size), generator=self.g)
                weight = torch.full((self.batch_size,), 1.0)
                yield pos, neg, weight, self.mode


class BidirectionalOneShotIterator:
    def __init__(self, head_data, tail_data):
        self.head = iter(head_data)
        self.tail = iter(tail_data)
        self.step = 0

    def __iter__(self):
        return self

    def __next__(self):
        self.step += 1
        return next(self.head) if self.step % 2 == 0 else next(self.tail)
