# Source: https://github.com/deepmodeling/Uni-Mol/issues/173
# Shape: a user-written loss class in a unicore/fairseq-style trainer puts the attached loss tensor into its logging_output dict; the trainer keeps every step's logging_output in a list that is reduced only at the end of the epoch, so host memory grows with one graph per step (the reporter's fix was loss.data in the dict).
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class MaskedTokenLoss(nn.Module):
    def __init__(self, padding_idx=0):
        super().__init__()
        self.padding_idx = padding_idx

    def forward(self, model, sample):
        logits = model(sample["net_input"])
        target = sample["target"]
        mask = target.ne(self.padding_idx)
        sample_size = int(mask.sum())
        nll = F.cross_entropy(logits[mask], target[mask], reduction="sum")
        logging_output = {
            "loss": nll,
            "sample_size": sample_size,
            "bsz": target.size(0),
        }
        return nll, sample_size, logging_output

    @staticmethod
    def reduce_metrics(logging_outputs):
        loss_sum = sum(log["loss"] for log in logging_outputs)
        size = sum(log["sample_size"] for log in logging_outputs)
        return {"loss": float(loss_sum) / max(size, 1)}


class Trainer:
    def __init__(self, model, loss_fn, lr=1e-4):
        self.model = model
        self.loss_fn = loss_fn
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.epoch_logs = []

    def train_step(self, sample):
        self.model.train()
        self.optimizer.zero_grad()
        loss, sample_size, logging_output = self.loss_fn(self.model, sample)
        (loss / max(sample_size, 1)).backward()
        self.optimizer.step()
        self.epoch_logs.append(logging_output)  # TLK102

    def train_epoch(self, itr):
        for sample in itr:
            self.train_step(sample)
        stats = self.loss_fn.reduce_metrics(self.epoch_logs)
        self.epoch_logs = []
        return stats
