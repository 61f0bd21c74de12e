# Confusion-matrix scores in the style of wkentaro/pytorch-fcn, kept in torch (no numpy dependency).
import torch


class runningScore(object):
    def __init__(self, n_classes):
        self.n_classes = n_classes
        self.confusion_matrix = torch.zeros(n_classes, n_classes, dtype=torch.long)

    def _fast_hist(self, label_true, label_pred, n_class):
        mask = (label_true >= 0) & (label_true < n_class)
        return torch.bincount(n_class * label_true[mask] + label_pred[mask], minlength=n_class ** 2).reshape(n_class, n_class)

    def update(self, label_trues, label_preds):
        for lt, lp in zip(label_trues, label_preds):
            self.confusion_matrix += self._fast_hist(lt.flatten(), lp.flatten(), self.n_classes)

    def get_scores(self):
        hist = self.confusion_matrix.double()
        acc = torch.diag(hist).sum() / hist.sum()
        iu = torch.diag(hist) / (hist.sum(1) + hist.sum(0) - torch.diag(hist))
        mean_iu = torch.nanmean(iu)
        return {"Overall Acc: \t": acc.item(), "Mean IoU : \t": mean_iu.item()}

    def reset(self):
        self.confusion_matrix.zero_()


class averageMeter(object):
    """Computes and stores the average and current value"""

    def __init__(self):
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count
