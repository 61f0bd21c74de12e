import torch
from torch import Tensor

from avalanche.evaluation.metrics.mean import Mean


class Accuracy:
    """Accuracy metric: running accuracy over <prediction, target> pairs."""

    def __init__(self):
        self._mean_accuracy = Mean()

    @torch.no_grad()
    def update(self, predicted_y: Tensor, true_y: Tensor) -> None:
        true_y = torch.as_tensor(true_y)
        predicted_y = torch.as_tensor(predicted_y)
        if len(predicted_y.shape) > 1:
            # Logits -> transform to labels
            predicted_y = torch.max(predicted_y, 1)[1]
        true_positives = float(torch.sum(torch.eq(predicted_y, true_y)))
        total_patterns = len(true_y)
        self._mean_accuracy.update(true_positives / total_patterns, total_patterns)

    def result(self) -> float:
        return self._mean_accuracy.result()

    def reset(self) -> None:
        self._mean_accuracy.reset()


class AccuracyPluginMetric:
    def __init__(self, reset_at, emit_at, mode):
        self._metric = Accuracy()
        self._reset_at = reset_at
        self._emit_at = emit_at
        self._mode = mode

    def reset(self):
        self._metric.reset()

    def result(self):
        return self._metric.result()

    def update(self, strategy):
        self._metric.update(strategy.mb_output, strategy.mb_y)


class EpochAccuracy(AccuracyPluginMetric):
    def __init__(self):
        super().__init__(reset_at="epoch", emit_at="epoch", mode="train")

    def __str__(self):
        return "Top1_Acc_Epoch"


class StreamAccuracy(AccuracyPluginMetric):
    def __init__(self):
        super().__init__(reset_at="stream", emit_at="stream", mode="eval")

    def __str__(self):
        return "Top1_Acc_Stream"
