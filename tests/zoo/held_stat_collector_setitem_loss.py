# Source: https://github.com/IBM/mi-prometheus/issues/111
# Shape: a worker records per-episode statistics through a StatisticsCollector whose __setitem__ appends to a per-key list; the training loop writes the graph-attached loss tensor into it every episode, so the collector holds one loss (and its graph) per episode.
# Verdict: leak
import collections
import logging

import torch

logger = logging.getLogger(__name__)


class StatisticsCollector:
    def __init__(self):
        self.statistics = collections.OrderedDict()

    def add_statistic(self, key):
        self.statistics[key] = []

    def __setitem__(self, key, value):
        self.statistics[key].append(value)

    def __getitem__(self, key):
        return self.statistics[key]

    def empty(self):
        for key in self.statistics:
            del self.statistics[key][:]

    def export_to_string(self):
        return " ; ".join(f"{k} {float(v[-1]):.4f}" for k, v in self.statistics.items() if v)


class Problem:
    def __init__(self, loss_function):
        self.loss_function = loss_function

    def evaluate_loss(self, data_dict, logits):
        return self.loss_function(logits, data_dict["targets"])

    def collect_statistics(self, stat_col, data_dict, logits):
        stat_col["acc"] = (logits.argmax(1) == data_dict["targets"]).float().mean().item()


class Trainer:
    def __init__(self, model, problem, optimizer, log_interval=100):
        self.model = model
        self.problem = problem
        self.optimizer = optimizer
        self.log_interval = log_interval
        self.stat_col = StatisticsCollector()
        for key in ("episode", "loss", "acc"):
            self.stat_col.add_statistic(key)

    def forward_step(self, data_dict, episode):
        logits = self.model(data_dict["inputs"])
        loss = self.problem.evaluate_loss(data_dict, logits)
        self.stat_col["episode"] = episode
        self.stat_col["loss"] = loss  # TLK102
        self.problem.collect_statistics(self.stat_col, data_dict, logits)
        return loss

    def train(self, loader, max_episodes):
        self.model.train()
        for episode, data_dict in enumerate(loader):
            self.optimizer.zero_grad()
            loss = self.forward_step(data_dict, episode)
            loss.backward()
            self.optimizer.step()
            if episode % self.log_interval == 0:
                logger.info(self.stat_col.export_to_string())
            if episode + 1 >= max_episodes:
                break
