# Modelled on karpathy/minGPT (mingpt/utils.py beside mingpt/trainer.py): small helpers the
# trainer uses; here a loss history kept for the progress callback.


class LossTracker:
    def __init__(self):
        self.history = []

    def log(self, loss):
        self.history.append(loss)

    def log_value(self, loss):
        self.history.append(loss.item())


def running_mean(previous, value, momentum=0.9):
    return momentum * previous + (1 - momentum) * value
