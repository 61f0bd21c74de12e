# Modelled on utils/tools.py of zhouhaoyi/Informer2020 (EarlyStopping, adjust_learning_rate),
# with a LossRecorder standing in for the train_loss lists that exp_informer.py averages.
import math


def adjust_learning_rate(optimizer, epoch, args):
    lr_adjust = {epoch: args.learning_rate * (0.5 ** ((epoch - 1) // 1))}
    if epoch in lr_adjust.keys():
        lr = lr_adjust[epoch]
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr


class EarlyStopping:
    def __init__(self, patience=7, verbose=False, delta=0):
        self.patience = patience
        self.verbose = verbose
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.val_loss_min = math.inf
        self.delta = delta
        self.history = []

    def __call__(self, val_loss, model, path):
        self.history.append(val_loss)  # (the loss vali returns, from the list it keeps attached: reported there, exp/exp_informer.py)
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
        elif score < self.best_score + self.delta:
            self.counter += 1
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
            self.counter = 0

    def save_checkpoint(self, val_loss, model, path):
        self.best_state = {k: v.clone() for k, v in model.state_dict().items()}
        self.val_loss_min = val_loss


class LossRecorder:
    """Per-split running sums of the losses, averaged at the end of each epoch."""

    def __init__(self):
        self.totals = {}
        self.counts = {}

    def update(self, split, value, n=1):
        self.totals[split] = self.totals.get(split, 0.0) + value * n
        self.counts[split] = self.counts.get(split, 0) + n

    def average(self, split):
        return self.totals[split] / max(self.counts[split], 1)

    def reset(self):
        self.totals, self.counts = {}, {}
