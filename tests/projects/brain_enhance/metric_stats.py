"""Statistics trackers (speechbrain.utils.metric_stats) plus a running meter."""

import torch


class MetricStats:
    """A default class for storing and summarizing arbitrary metrics.

    Arguments
    ---------
    metric : function
        The function to use to compute the relevant metric. Should take
        at least two arguments (predictions and targets) and can
        optionally take the relative lengths of either or both arguments.
    """

    def __init__(self, metric):
        self.metric = metric
        self.clear()

    def clear(self):
        self.scores = []
        self.ids = []
        self.summary = {}

    def append(self, ids, *args, **kwargs):
        """Store a particular set of metric scores (one per id)."""
        self.ids.extend(ids)
        scores = self.metric(*args, **kwargs)
        self.scores.extend(scores)  # known-miss: TLK102

    def summarize(self, field=None):
        scores = torch.stack([torch.as_tensor(s, dtype=torch.float32) for s in self.scores])
        min_index = int(torch.argmin(scores))
        max_index = int(torch.argmax(scores))
        self.summary = {
            "average": float(scores.mean()),
            "min_score": float(scores[min_index]),
            "min_id": self.ids[min_index],
            "max_score": float(scores[max_index]),
            "max_id": self.ids[max_index],
        }
        if field is not None:
            return self.summary[field]
        return self.summary


class ErrorStats:
    """Keeps per-utterance errors as python floats (cheap to keep for a whole epoch)."""

    def __init__(self):
        self.errors = {}

    def append(self, ids, errors):
        for utt_id, err in zip(ids, errors):
            self.errors[utt_id] = err.item()

    def worst(self, k=3):
        return sorted(self.errors.items(), key=lambda kv: -kv[1])[:k]


class AverageMeter:
    """Weighted running average of a scalar (e.g. training SI-SNR)."""

    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.sum += val * n  # known-miss: TLK101
        self.count += n

    def summarize(self):
        return float(self.sum) / max(self.count, 1)


class TrainLogger:
    """Keeps the per-epoch summaries (python numbers only), like FileTrainLogger."""

    def __init__(self):
        self.history = []

    def log_stats(self, stats_meta, train_stats=None, valid_stats=None):
        self.history.append({"meta": dict(stats_meta), "train": dict(train_stats or {}),
                             "valid": dict(valid_stats or {})})
