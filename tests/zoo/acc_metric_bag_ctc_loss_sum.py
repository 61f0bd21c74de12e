# Source: https://github.com/facebookresearch/fairseq2/pull/733
# Shape: a seq2seq fine-tuning recipe's criterion hands the CTC loss it is about to return for backward to a metric bag; the bag's weighted Mean adds the attached loss into a running sum that lives on the bag across steps, so every step's graph hangs off the sum until the bag is reset.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class Mean:
    def __init__(self):
        self.reset()

    def reset(self):
        self.weighted_sum = torch.zeros(())
        self.weight = torch.zeros(())

    def update(self, value, weight=1.0):
        self.weighted_sum = self.weighted_sum + value * weight  # TLK101
        self.weight = self.weight + weight

    def compute(self):
        return (self.weighted_sum / self.weight.clamp(min=1)).item()


class AsrMetricBag:
    def __init__(self):
        self._ctc_loss = Mean()
        self._num_frames = 0

    def update_ctc_loss(self, batch_size, loss):
        self._ctc_loss.update(loss / batch_size, weight=batch_size)

    def update_batch_metrics(self, num_frames):
        self._num_frames += num_frames

    def sync_and_compute_metrics(self):
        return {"ctc_loss": self._ctc_loss.compute(), "num_frames": self._num_frames}


class Wav2VecCtcCriterion:
    def __init__(self, encoder, metric_bag, blank=0):
        self._encoder = encoder
        self._metric_bag = metric_bag
        self._blank = blank

    def __call__(self, feats, targets, target_lengths):
        log_probs = self._encoder(feats).log_softmax(-1).transpose(0, 1)
        input_lengths = torch.full((feats.size(0),), feats.size(1), dtype=torch.long)
        objective = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=self._blank, reduction="sum")
        self._metric_bag.update_ctc_loss(feats.size(0), objective)
        self._metric_bag.update_batch_metrics(int(input_lengths.sum()))
        return objective, feats.size(0)


def train(encoder, batches, lr=1e-4, log_every=50):
    bag = AsrMetricBag()
    criterion = Wav2VecCtcCriterion(encoder, bag)
    optimizer = torch.optim.AdamW(encoder.parameters(), lr=lr)
    reports = []
    for step_nr, (feats, targets, target_lengths) in enumerate(batches, start=1):
        optimizer.zero_grad()
        objective, batch_size = criterion(feats, targets, target_lengths)
        (objective / batch_size).backward()
        optimizer.step()
        if step_nr % log_every == 0:
            reports.append(bag.sync_and_compute_metrics())
    return reports, bag


def build_encoder(feat_dim=20, vocab=12, width=48):
    return nn.Sequential(nn.Linear(feat_dim, width), nn.GELU(), nn.Linear(width, width), nn.GELU(), nn.Linear(width, vocab))
