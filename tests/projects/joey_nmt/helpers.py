import logging
import random

import torch

PAD_ID, BOS_ID, EOS_ID = 0, 1, 2


def set_seed(seed):
    random.seed(seed)
    torch.manual_seed(seed)


def make_logger(name="joeynmt"):
    logger = logging.getLogger(name)
    if not logger.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("%(asctime)s - %(message)s"))
        logger.addHandler(handler)
        logger.setLevel(logging.INFO)
    return logger


class TrainStatistics:
    """Step / token counters and the running training loss of the whole run."""

    def __init__(self):
        self.steps = 0
        self.total_tokens = 0
        self.total_loss = 0.0
        self.grad_norms = []

    def add_batch(self, batch_loss, ntokens):
        self.steps += 1
        self.total_tokens += ntokens
        self.total_loss += batch_loss * ntokens

    def add_grad_norm(self, norm):
        self.grad_norms.append(norm)

    def mean_loss(self):
        return self.total_loss / max(self.total_tokens, 1)


class ValidationTracker:
    """History of validation results, used for early stopping and the final report."""

    def __init__(self, minimize=False):
        self.history = []
        self.minimize = minimize

    def add_valid(self, step, valid_loss, score):
        self.history.append({"step": step, "loss": valid_loss, "score": score})

    def is_best(self, score):
        scores = [h["score"] for h in self.history[:-1]]
        if not scores:
            return True
        return score < min(scores) if self.minimize else score > max(scores)


def sequence_accuracy(hypotheses, references):
    if not references:
        return 0.0
    return sum(h == r for h, r in zip(hypotheses, references)) / len(references)
