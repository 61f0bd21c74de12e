# Modelled on Lightning-AI/pytorch-lightning, where the trainer module imports the callbacks
# and the callbacks module imports the trainer back (an import cycle), reduced to two files.
import torch

from callbacks import Callback, LossHistory, ScalarHistory


class Trainer:
    def __init__(self, model, max_epochs=1):
        self.model = model
        self.max_epochs = max_epochs
        self.history = LossHistory()
        self.scalars = ScalarHistory()

    def fit(self, loader):
        optimizer = torch.optim.SGD(self.model.parameters(), lr=0.1)
        for epoch in range(self.max_epochs):
            for batch in loader:
                loss = self.model(batch).mean()
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.history.on_train_batch_end(self, loss)  # expect: TLK102 (callbacks.py)
                self.scalars.on_train_batch_end(self, loss)  # clean: keeps loss.item()


def make_trainer(model):
    return Trainer(model)


def default_callbacks():
    return [Callback()]
