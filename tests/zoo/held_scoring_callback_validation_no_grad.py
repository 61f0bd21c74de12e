# Source: https://github.com/skorch-dev/skorch/issues/218
# Shape: the fixed skorch-style NeuralNet: validation_step runs its forward and loss under torch.no_grad(), so the y_pred that the epoch-scoring callback appends for every validation batch carries no graph.
# Verdict: clean
import torch
import torch.nn as nn


class EpochScoring:
    def __init__(self, scoring, name, on_train=False):
        self.scoring = scoring
        self.name = name
        self.on_train = on_train

    def on_epoch_begin(self, net, **kwargs):
        self.y_trues_ = []
        self.y_preds_ = []

    def on_batch_end(self, net, y, y_pred, training, **kwargs):
        if training != self.on_train:
            return
        self.y_trues_.append(y)
        self.y_preds_.append(y_pred)

    def on_epoch_end(self, net, **kwargs):
        y_pred = torch.cat(self.y_preds_).argmax(dim=1)
        net.history[-1][self.name] = self.scoring(torch.cat(self.y_trues_), y_pred)


class NeuralNet:
    def __init__(self, module: nn.Module, criterion, lr=0.01, max_epochs=10, callbacks=()):
        self.module_ = module
        self.criterion_ = criterion
        self.optimizer_ = torch.optim.SGD(module.parameters(), lr=lr)
        self.max_epochs = max_epochs
        self.callbacks = list(callbacks)
        self.history = []

    def notify(self, method_name, **cb_kwargs):
        for callback in self.callbacks:
            getattr(callback, method_name)(self, **cb_kwargs)

    def infer(self, x):
        return self.module_(x)

    def train_step(self, Xi, yi):
        self.module_.train()
        self.optimizer_.zero_grad()
        y_pred = self.infer(Xi)
        loss = self.criterion_(y_pred, yi)
        loss.backward()
        self.optimizer_.step()
        return {"loss": loss, "y_pred": y_pred}

    def validation_step(self, Xi, yi):
        self.module_.eval()
        with torch.no_grad():
            y_pred = self.infer(Xi)
            loss = self.criterion_(y_pred, yi)
        return {"loss": loss, "y_pred": y_pred}

    def run_single_epoch(self, iterator, training, prefix):
        step_fn = self.train_step if training else self.validation_step
        for Xi, yi in iterator:
            step = step_fn(Xi, yi)
            self.history[-1].setdefault(prefix + "_batches", []).append((step["loss"].item(), len(Xi)))
            self.notify("on_batch_end", X=Xi, y=yi, training=training, **step)

    def fit(self, train_iter, valid_iter):
        for epoch in range(self.max_epochs):
            self.history.append({"epoch": epoch})
            self.notify("on_epoch_begin")
            self.run_single_epoch(train_iter, training=True, prefix="train")
            self.run_single_epoch(valid_iter, training=False, prefix="valid")
            self.notify("on_epoch_end")
        return self
