import torch
import torch.nn.functional as F


class OnlineMetrics:
    """
    Anytime (online) metrics: every incoming batch is scored by the current model
    *before* the model is trained on it.
    """

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.loss_sum = 0.0
        self.correct = 0
        self.count = 0

    def update(self, logits: torch.Tensor, labels: torch.Tensor) -> None:
        self.loss_sum += F.cross_entropy(logits, labels, reduction='sum')  # expect: TLK101
        self.correct += (logits.argmax(dim=1) == labels).sum().item()
        self.count += labels.shape[0]

    @property
    def loss(self) -> float:
        return float(self.loss_sum) / max(self.count, 1)

    @property
    def accuracy(self) -> float:
        return 100.0 * self.correct / max(self.count, 1)
