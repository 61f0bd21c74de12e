from collections import defaultdict

import torch


def adjust_learning_rate(optimizer, epoch, args):
    # lr = args.learning_rate * (0.2 ** (epoch // 2))
    if args.lradj == 'type1':
        lr_adjust = {epoch: args.learning_rate * (0.5 ** ((epoch - 1) // 1))}
    elif args.lradj == 'type2':
        lr_adjust = {
            2: 5e-5, 4: 1e-5, 6: 5e-6, 8: 1e-6,
            10: 5e-7, 15: 1e-7, 20: 5e-8
        }
    else:
        lr_adjust = {}
    if epoch in lr_adjust.keys():
        lr = lr_adjust[epoch]
        for param_group in optimizer.param_groups:
            param_group['lr'] = lr
        print('Updating learning rate to {}'.format(lr))


class EarlyStopping:
    def __init__(self, patience=7, verbose=False, delta=0):
        self.patience = patience
        self.verbose = verbose
        self.counter = 0
        self.best_score = None
        self.early_stop = False
        self.val_loss_min = float('inf')
        self.delta = delta
        self.best_state = None

    def __call__(self, val_loss, model, path):
        score = -val_loss
        if self.best_score is None:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
        elif score < self.best_score + self.delta:
            self.counter += 1
            print(f'EarlyStopping counter: {self.counter} out of {self.patience}')
            if self.counter >= self.patience:
                self.early_stop = True
        else:
            self.best_score = score
            self.save_checkpoint(val_loss, model, path)
            self.counter = 0

    def save_checkpoint(self, val_loss, model, path):
        if self.verbose:
            print(f'Validation loss decreased ({self.val_loss_min:.6f} --> {val_loss:.6f}).  Saving model ...')
        # kept in memory instead of path + '/' + 'checkpoint.pth'
        self.best_state = {k: v.detach().clone() for k, v in model.state_dict().items()}
        self.val_loss_min = val_loss


class TrainRecorder(object):
    """Per-iteration training curves (loss, sMAPE, lr), dumped next to the checkpoint after training."""

    def __init__(self):
        self.history = defaultdict(list)
        self.steps = 0

    def record(self, **scalars):
        self.steps += 1
        for name, value in scalars.items():
            self.history[name].append(value)  # expect: TLK102

    def last(self, name):
        values = self.history.get(name)
        return values[-1] if values else None


class dotdict(dict):
    """dot.notation access to dictionary attributes"""
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__


class StandardScaler():
    def __init__(self):
        self.mean = 0.
        self.std = 1.

    def fit(self, data):
        self.mean = data.mean(0)
        self.std = data.std(0)

    def transform(self, data):
        mean = self.mean.type_as(data).to(data.device) if torch.is_tensor(self.mean) else self.mean
        std = self.std.type_as(data).to(data.device) if torch.is_tensor(self.std) else self.std
        return (data - mean) / std

    def inverse_transform(self, data):
        mean = self.mean.type_as(data).to(data.device) if torch.is_tensor(self.mean) else self.mean
        std = self.std.type_as(data).to(data.device) if torch.is_tensor(self.std) else self.std
        if data.shape[-1] != mean.shape[-1]:
            mean = mean[-1:]
            std = std[-1:]
        return (data * std) + mean
