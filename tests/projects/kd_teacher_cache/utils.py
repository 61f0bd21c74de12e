"""Bookkeeping helpers shared by train.py and evaluate.py."""
import json


class Params:
    """Hyper-parameters as attributes (normally loaded from params.json)."""

    def __init__(self, **kwargs):
        self.__dict__.update(kwargs)

    def dict(self):
        return dict(self.__dict__)

    def save(self, path):
        with open(path, "w") as f:
            json.dump(self.__dict__, f, indent=2)


class RunningAverage:
    """Running mean of whatever it is fed."""

    def __init__(self):
        self.steps = 0
        self.total = 0

    def update(self, val):
        self.total += val
        self.steps += 1

    def __call__(self):
        return self.total / float(max(self.steps, 1))


class GapTracker:
    """Smoothed student-minus-teacher cross-entropy; used to anneal the KD weight."""

    def __init__(self, momentum=0.9, lo=0.1, hi=0.9):
        self.momentum = momentum
        self.lo, self.hi = lo, hi
        self.gap = 0.0

    def update(self, student_ce, teacher_ce):
        self.gap = self.momentum * self.gap + (1 - self.momentum) * (student_ce - teacher_ce)  # expect: TLK103

    def alpha(self):
        return min(self.hi, max(self.lo, 0.5 + float(self.gap)))


def accuracy(outputs, labels):
    return (outputs.argmax(dim=1) == labels).float().mean().item()
