# Modelled on egs/librispeech/ASR/conformer_ctc/label_smoothing.py
import torch


class LabelSmoothingLoss(torch.nn.Module):
    """
    Implement the LabelSmoothingLoss proposed in the following paper
    https://arxiv.org/pdf/1512.00567.pdf
    (Rethinking the Inception Architecture for Computer Vision)
    """

    def __init__(self, ignore_index: int = -1, label_smoothing: float = 0.1, reduction: str = "sum") -> None:
        super().__init__()
        assert 0.0 <= label_smoothing < 1.0
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.reduction = reduction

    def forward(self, x: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
        assert x.ndim == 3
        assert target.ndim == 2
        assert x.shape[:2] == target.shape
        num_classes = x.size(-1)
        x = x.reshape(-1, num_classes)
        # Save a copy of the target for computing ignored_mask
        target = target.clone().reshape(-1)

        ignored = target == self.ignore_index
        # See https://github.com/k2-fsa/icefall/issues/240
        # and https://github.com/k2-fsa/icefall/issues/297
        # for why we don't use target[ignored] = 0 here
        target = torch.where(ignored, torch.zeros_like(target), target)

        true_dist = torch.nn.functional.one_hot(target, num_classes=num_classes).to(x)

        true_dist = true_dist * (1 - self.label_smoothing) + self.label_smoothing / num_classes
        # Set the value of ignored indexes to 0
        true_dist = torch.where(ignored.unsqueeze(1).repeat(1, true_dist.shape[1]),
                                torch.zeros_like(true_dist), true_dist)

        loss = -1 * (torch.log_softmax(x, dim=1) * true_dist)
        if self.reduction == "sum":
            return loss.sum()
        elif self.reduction == "mean":
            return loss.sum() / (~ignored).sum()
        return loss.sum(dim=-1)
