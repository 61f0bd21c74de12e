# Source: https://github.com/pytorchbearer/torchbearer/issues/506
# Shape: the same trial loop and running mean-squared-error metric, but the metric detaches the prediction before it squares the error, so its running sum stays a plain tensor from batch to batch.
# Verdict: clean
import torch
import torch.nn as nn

PRED, TARGET, LOSS = "y_pred", "y_true", "loss"


class RunningMSE:
    name = "running_mse"

    def __init__(self):
        self.reset()

    def reset(self):
        self._sq_sum = torch.zeros(())
        self._count = 0

    def process(self, state):
        err = state[PRED].detach() - state[TARGET]
        self._sq_sum = self._sq_sum + err.pow(2).sum()
        self._count += err.numel()
        return self._sq_sum / self._count


class RunningLoss:
    name = "running_loss"

    def __init__(self):
        self.reset()

    def reset(self):
        self._total, self._steps = 0.0, 0

    def process(self, state):
        self._total += state[LOSS].item()
        self._steps += 1
        return self._total / self._steps


class Trial:
    def __init__(self, net, crit, metrics, lr=1e-2):
        self.net, self.crit, self.metrics = net, crit, metrics
        self.opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
        self.log = []

    def run_epoch(self, loader):
        for metric in self.metrics:
            metric.reset()
        for inputs, targets in loader:
            state = {TARGET: targets}
            self.opt.zero_grad()
            state[PRED] = self.net(inputs)
            state[LOSS] = self.crit(state[PRED], targets)
            state[LOSS].backward()
            self.opt.step()
            values = {metric.name: metric.process(state) for metric in self.metrics}
        self.log.append({name: float(value) for name, value in values.items()})

    def run(self, loader, epochs=1):
        for _ in range(epochs):
            self.run_epoch(loader)
        return self.log


def build():
    net = nn.Sequential(nn.Linear(8, 64), nn.Tanh(), nn.Linear(64, 1))
    return Trial(net, nn.MSELoss(), [RunningMSE(), RunningLoss()])
