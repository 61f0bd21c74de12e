"""Validation metric: mean IoU from accumulated intersections and unions."""
import torch

from ..registry import METRICS


@METRICS.register_module()
class IoUMetric:

    def __init__(self, num_classes: int = 3):
        self.num_classes = num_classes
        self.results = []

    def process(self, data_batch, data_samples) -> None:
        pred, gt = data_samples
        inter = torch.stack([((pred == c) & (gt == c)).sum() for c in range(self.num_classes)])
        union = torch.stack([((pred == c) | (gt == c)).sum() for c in range(self.num_classes)])
        self.results.append((inter, union))

    def evaluate(self) -> dict:
        inter = sum(r[0] for r in self.results).float()
        union = sum(r[1] for r in self.results).float().clamp(min=1)
        self.results.clear()
        return dict(mIoU=float((inter / union).mean()))
