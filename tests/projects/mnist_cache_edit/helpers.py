# Modelled on pytorch/examples (mnist/main.py), with its per-batch step and logging moved into
# a helper module, as forks of the example do. tests/test_projects.py replaces this file with
# helpers.py.edited between two runs: the cache must notice.


def batch_loss(model, data, target, optimizer, loss_fn):
    optimizer.zero_grad()
    output = model(data)
    loss = loss_fn(output, target)
    loss.backward()
    optimizer.step()
    return loss.item()


class Log:
    def __init__(self):
        self.entries = []

    def record(self, value):
        self.entries.append(float(value))
