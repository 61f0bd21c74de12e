# Source: https://github.com/pytorch/ignite/pull/943
# Shape: a tiny ignite-style Engine fires ITERATION_COMPLETED handlers; a RunningAverage metric attached with an identity output_transform reads engine.state.output (the attached loss tensor returned by the process function) and folds it into self._value with an exponential moving average, so every iteration's graph hangs off the metric.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

STEPS = 200


class State:
    def __init__(self):
        self.iteration = 0
        self.output = None
        self.metrics = {}


class Engine:
    def __init__(self, process_function):
        self.process_function = process_function
        self.state = State()
        self._handlers = {"iteration_completed": [], "epoch_started": []}

    def add_event_handler(self, event, handler, *args):
        self._handlers[event].append((handler, args))

    def fire(self, event):
        for handler, args in self._handlers[event]:
            handler(self, *args)

    def run(self, data, max_epochs=1):
        for _ in range(max_epochs):
            self.fire("epoch_started")
            for batch in data:
                self.state.iteration += 1
                self.state.output = self.process_function(self, batch)
                self.fire("iteration_completed")
        return self.state


class RunningAverage:
    def __init__(self, alpha=0.98, output_transform=lambda x: x):
        self.alpha = alpha
        self.output_transform = output_transform
        self._value = None

    def started(self, engine):
        self._value = None

    def completed(self, engine, name):
        src = self.output_transform(engine.state.output)
        if self._value is None:
            self._value = src
        else:
            self._value = self._value * self.alpha + (1.0 - self.alpha) * src  # TLK101
        engine.state.metrics[name] = self._value

    def attach(self, engine, name):
        engine.add_event_handler("epoch_started", self.started)
        engine.add_event_handler("iteration_completed", self.completed, name)


model = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)


def update(engine, batch):
    x, y = batch
    model.train()
    optimizer.zero_grad()
    loss = F.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


trainer = Engine(update)
RunningAverage(output_transform=lambda x: x).attach(trainer, "running_avg_loss")
data = ((torch.randn(16, 32), torch.randint(0, 4, (16,))) for _ in range(STEPS))
state = trainer.run(data)
print("running avg loss", float(state.metrics["running_avg_loss"]))
