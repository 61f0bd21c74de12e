import math


class AverageMeter(object):
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


def check_loss(loss, loss_value):
    """Check that warp-ctc loss is valid and will not break training
    :return: Return if loss is valid, and the error in case it is not"""
    loss_valid = True
    error = ''
    if loss_value == math.inf or loss_value == -math.inf:
        loss_valid = False
        error = "WARNING: received an inf loss"
    elif math.isnan(loss_value):
        loss_valid = False
        error = 'WARNING: received a nan loss, setting loss value to 0'
    elif loss_value < 0:
        loss_valid = False
        error = "WARNING: received a negative loss"
    return loss_valid, error


def accumulate_losses(totals, losses):
    """Running per-epoch sums of every named loss term, reported at epoch end."""
    for name, value in losses.items():
        totals[name] = totals.get(name, 0.0) + value  # expect: TLK101
    totals['_n'] = totals.get('_n', 0) + 1
    return totals


def epoch_summary(totals):
    n = max(totals.get('_n', 1), 1)
    return {k: float(v) / n for k, v in totals.items() if k != '_n'}
