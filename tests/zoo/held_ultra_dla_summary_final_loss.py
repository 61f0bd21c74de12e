# Source: https://github.com/ULTR-Community/ULTRA_pytorch/issues/6
# Shape: an unbiased learning-to-rank algorithm (DLA: a ranking model and a propensity model trained jointly) logs its per-step scalars through create_summary, which stores each value in the train summary and an in-memory scalar writer whose history lives for the whole run; the final loss is logged as the graph-attached self.loss, so every step's graph stays reachable through the writer and CPU memory is used up after about 10k steps (fix in the report: log self.loss.item()).
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class ScalarWriter:
    """Keeps every logged scalar so the run can be plotted at the end."""

    def __init__(self):
        self.history = defaultdict(list)

    def add_scalar(self, tag, value, step):
        self.history[tag].append((step, value))


class BaseAlgorithm:
    def __init__(self):
        self.writer = ScalarWriter()
        self.train_summary = {}
        self.global_step = 0

    def create_summary(self, scalar_name, summarize_name, value, is_training):
        if is_training:
            self.train_summary[scalar_name] = value
            self.writer.add_scalar(scalar_name, value, self.global_step)


class DLA(BaseAlgorithm):
    def __init__(self, feature_size, rank_list_size, lr=0.05, propensity_lr=0.05, ranker_loss_weight=1.0):
        super().__init__()
        self.model = nn.Sequential(nn.Linear(feature_size, 64), nn.ELU(), nn.Linear(64, 1))
        self.propensity_model = nn.Sequential(nn.Linear(rank_list_size, rank_list_size))
        self.ranker_loss_weight = ranker_loss_weight
        self.opt_ranker = torch.optim.Adagrad(self.model.parameters(), lr=lr)
        self.opt_denoise = torch.optim.Adagrad(self.propensity_model.parameters(), lr=propensity_lr)

    @staticmethod
    def softmax_loss(output, labels, weights):
        label_dis = labels * weights / (labels * weights).sum(dim=1, keepdim=True).clamp_min(1e-9)
        return -(label_dis * F.log_softmax(output, dim=1)).sum(dim=1).mean()

    def train(self, features, clicks):
        scores = self.model(features).squeeze(-1)
        propensity = self.propensity_model(torch.ones_like(clicks))
        propensity_weights = F.softmax(propensity, dim=1)[:, :1] / F.softmax(propensity, dim=1)
        relevance_weights = F.softmax(scores, dim=1)[:, :1] / F.softmax(scores, dim=1)
        self.rank_loss = self.softmax_loss(scores, clicks, propensity_weights.detach())
        self.exam_loss = self.softmax_loss(propensity, clicks, relevance_weights.detach())
        self.loss = self.exam_loss + self.ranker_loss_weight * self.rank_loss
        self.opt_ranker.zero_grad()
        self.opt_denoise.zero_grad()
        self.loss.backward()
        self.opt_ranker.step()
        self.opt_denoise.step()
        self.create_summary("Rank Loss", "Rank Loss at global step", self.rank_loss.item(), True)
        self.create_summary("Exam Loss", "Exam Loss at global step", self.exam_loss.item(), True)
        self.create_summary("Final Loss", "Final Loss at global step", self.loss, True)  # TLK102
        self.global_step += 1
        return self.train_summary


def train_loop(algorithm, click_batches):
    for features, clicks in click_batches:
        summary = algorithm.train(features, clicks)
        if algorithm.global_step % 100 == 0:
            print(algorithm.global_step, float(summary["Final Loss"]))
