# Modelled on utils.py of Kaixhin/PlaNet (lineplot, write_video) and the metrics dict of its
# main.py ('observation_loss', 'reward_loss', 'kl_loss', 'train_rewards', ...), gathered into a
# logger object that main.py builds and hands to the trainer.
import json
import os


class MetricsLogger(object):
    def __init__(self, results_dir=None):
        self.results_dir = results_dir
        self.metrics = {}

    def log(self, name, value):
        self.metrics.setdefault(name, []).append(value)

    def last(self, name):
        return float(self.metrics[name][-1])

    def dump(self):
        if self.results_dir is None:
            return
        os.makedirs(self.results_dir, exist_ok=True)
        with open(os.path.join(self.results_dir, 'metrics.json'), 'w') as f:
            json.dump({k: [float(v) for v in vs] for k, vs in self.metrics.items()}, f)


def lineplot(xs, ys_population, title, path=''):
    return None
