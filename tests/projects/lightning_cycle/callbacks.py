# Modelled on Lightning-AI/pytorch-lightning callbacks, which import the trainer module that
# imports them.
import trainer as trainer_module


class Callback:
    def on_train_batch_end(self, trainer, loss):
        pass


class LossHistory(Callback):
    def __init__(self):
        self.losses = []

    def on_train_batch_end(self, trainer, loss):
        self.losses.append(loss)


class ScalarHistory(Callback):
    def __init__(self):
        self.losses = []

    def on_train_batch_end(self, trainer, loss):
        self.losses.append(float(loss))


def attach(model):
    return trainer_module.make_trainer(model)
