import torch


class StreamSegMetrics:
    """Confusion-matrix based segmentation metrics accumulated over a stream of batches."""

    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.confusion_matrix = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def update(self, label_trues, label_preds):
        for lt, lp in zip(label_trues, label_preds):
            self.confusion_matrix += self._fast_hist(lt.flatten(), lp.flatten())

    def _fast_hist(self, label_true, label_pred):
        mask = (label_true >= 0) & (label_true < self.n_classes)
        idx = self.n_classes * label_true[mask] + label_pred[mask]
        return torch.bincount(idx, minlength=self.n_classes ** 2).reshape(self.n_classes, self.n_classes)

    def get_results(self):
        hist = self.confusion_matrix.double()
        acc = hist.diag().sum() / hist.sum().clamp(min=1)
        iu = hist.diag() / (hist.sum(1) + hist.sum(0) - hist.diag()).clamp(min=1)
        return {"Overall Acc": float(acc), "Mean IoU": float(iu.mean()), "Class IoU": iu.tolist()}

    def reset(self):
        self.confusion_matrix.zero_()


class AverageMeter:
    """Running sum / count / average of a scalar."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.sum = 0.0
        self.count = 0
        self.val = 0.0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)
