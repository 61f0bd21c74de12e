"""Decoding and the metrics the trainer reports (character error rate, running loss)."""
import torch


class GreedyDecoder:
    def __init__(self, labels, blank_index=0):
        self.labels = labels
        self.blank_index = blank_index

    def decode(self, probs, sizes):
        best = probs.argmax(-1)
        strings = []
        for row, size in zip(best.tolist(), sizes.tolist()):
            chars, previous = [], None
            for index in row[:size]:
                if index != previous and index != self.blank_index:
                    chars.append(self.labels[index])
                previous = index
            strings.append("".join(chars))
        return strings


def edit_distance(a, b):
    row = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        previous, row[0] = row[0], i
        for j, cb in enumerate(b, 1):
            previous, row[j] = row[j], min(row[j] + 1, row[j - 1] + 1, previous + (ca != cb))
    return row[-1]


class ErrorRate:
    """Character error rate over an epoch, plus the mean confidence of the best path."""

    def __init__(self, decoder):
        self.decoder = decoder
        self.errors = 0
        self.chars = 0
        self.confidences = []

    def update(self, probs, sizes, targets, target_sizes):
        predictions = self.decoder.decode(probs, sizes)
        offset = 0
        for prediction, size in zip(predictions, target_sizes.tolist()):
            reference = "".join(self.decoder.labels[i] for i in targets[offset:offset + size].tolist())
            offset += size
            self.errors += edit_distance(prediction, reference)
            self.chars += len(reference)
        self.confidences.append(probs.max(-1).values.exp().mean())

    def compute(self):
        confidence = torch.stack(self.confidences).mean().item() if self.confidences else 0.0
        return self.errors / max(self.chars, 1), confidence

    def reset(self):
        self.errors, self.chars, self.confidences = 0, 0, []


class LossMeter:
    """Mean loss since the last reset, for the progress line."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.total += value * n
        self.count += n

    @property
    def average(self):
        return self.total / max(self.count, 1)
