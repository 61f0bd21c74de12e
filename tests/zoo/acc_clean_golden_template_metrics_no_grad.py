# Source: https://github.com/amjltc295/pytorch-golden-template/pull/64
# Shape: looks like a metric-object leak (MeanLoss.update does self.total += loss * n with the raw attached loss, TopKAccuracy sums raw outputs), but WorkerTemplate._update_all_metrics runs every metric update inside torch.no_grad(), so the running sums never get a grad_fn.
# Verdict: clean
from abc import abstractmethod

import torch
import torch.nn as nn
import torch.nn.functional as F


class BaseMetric:
    def __init__(self, output_key, target_key, nickname):
        self.output_key = output_key
        self.target_key = target_key
        self.nickname = nickname

    @abstractmethod
    def update(self, data, output):
        """Called inside torch.no_grad() by WorkerTemplate._update_all_metrics."""

    @abstractmethod
    def finalize(self):
        pass


class MeanLoss(BaseMetric):
    def __init__(self, output_key="loss", target_key=None, nickname="mean_loss"):
        super().__init__(output_key, target_key, nickname)
        self.total = 0
        self.count = 0

    def update(self, data, output):
        n = data["target"].size(0)
        self.total += output[self.output_key] * n
        self.count += n
        return self.total / self.count

    def finalize(self):
        return float(self.total / max(self.count, 1))


class TopKAccuracy(BaseMetric):
    def __init__(self, k=1, output_key="logits", target_key="target", nickname="top1"):
        super().__init__(output_key, target_key, nickname)
        self.k = k
        self.correct = 0
        self.count = 0

    def update(self, data, output):
        topk = output[self.output_key].topk(self.k, dim=1).indices
        self.correct += (topk == data[self.target_key].unsqueeze(1)).any(1).sum()
        self.count += data[self.target_key].size(0)
        return self.correct / self.count

    def finalize(self):
        return float(self.correct) / max(self.count, 1)


class WorkerTemplate:
    def __init__(self, model, optimizer, metrics, loss_functions):
        self.model = model
        self.optimizer = optimizer
        self.metrics = metrics
        self.loss_functions = loss_functions

    def _get_and_write_losses(self, data, model_output):
        losses = [fn(model_output["logits"], data["target"]) for fn in self.loss_functions]
        return sum(losses)

    def _update_all_metrics(self, data, model_output):
        with torch.no_grad():
            return {m.nickname: m.update(data, model_output) for m in self.metrics}

    def _run_and_optimize_model(self, data):
        self.optimizer.zero_grad()
        model_output = {"logits": self.model(data["input"])}
        loss = self._get_and_write_losses(data, model_output)
        loss.backward()
        self.optimizer.step()
        model_output["loss"] = loss
        return model_output

    def _iter_data(self, data_loader):
        self.model.train()
        for batch_idx, data in enumerate(data_loader):
            model_output = self._run_and_optimize_model(data)
            self._update_all_metrics(data, model_output)
        return {m.nickname: m.finalize() for m in self.metrics}


class SmallCNN(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                      nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(32, num_classes)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def make_batches(n):
    return list(range(n))


def data_loader(seeds):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        yield {"input": torch.randn(16, 1, 16, 16, generator=g), "target": torch.randint(0, 10, (16,), generator=g)}


def run(batches):
    torch.manual_seed(0)
    model = SmallCNN()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    worker = WorkerTemplate(model, optimizer, [MeanLoss(), TopKAccuracy(k=1)], [nn.CrossEntropyLoss()])
    return worker._iter_data(data_loader(batches))


if __name__ == "__main__":
    print(run(make_batches(4)))
