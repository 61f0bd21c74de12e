import torch
from torch import Tensor

from avalanche.evaluation.metrics.mean import Mean


class LossMetric:
    """Loss Metric.

    Instances of this metric keep the running average loss
    over multiple <prediction, target> pairs of Tensors,
    provided incrementally.
    """

    def __init__(self):
        self._mean_loss = Mean()

    @torch.no_grad()
    def update(self, loss: Tensor, patterns: int) -> None:
        """Update the running loss."""
        self._mean_loss.update(torch.mean(loss), weight=patterns)

    def result(self) -> float:
        return self._mean_loss.result()

    def reset(self) -> None:
        self._mean_loss.reset()


class LossPluginMetric:
    """Base class for all loss plugin metrics (minibatch / epoch / experience)."""

    def __init__(self, reset_at, emit_at, mode):
        self._metric = LossMetric()
        self._reset_at = reset_at
        self._emit_at = emit_at
        self._mode = mode

    def reset(self):
        self._metric.reset()

    def result(self):
        return self._metric.result()

    def update(self, strategy):
        self._metric.update(strategy.loss, patterns=len(strategy.mb_y))


class MinibatchLoss(LossPluginMetric):
    def __init__(self):
        super().__init__(reset_at="iteration", emit_at="iteration", mode="train")

    def __str__(self):
        return "Loss_MB"


class EpochLoss(LossPluginMetric):
    def __init__(self):
        super().__init__(reset_at="epoch", emit_at="epoch", mode="train")

    def __str__(self):
        return "Loss_Epoch"


class StreamLoss(LossPluginMetric):
    def __init__(self):
        super().__init__(reset_at="stream", emit_at="stream", mode="eval")

    def __str__(self):
        return "Loss_Stream"
