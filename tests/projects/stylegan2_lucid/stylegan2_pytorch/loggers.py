"""Minimal in-process stand-in for the `aim.Session` experiment logger that
lucidrains' Trainer uses (Trainer.track -> self.logger.track(value, name=name)).
Metrics are kept in memory and can be written out with `flush`."""
import json
import os
from collections import defaultdict


class Session:
    def __init__(self, experiment='default', repo=None):
        self.experiment = experiment
        self.repo = repo
        self.params = {}
        self.metrics = defaultdict(list)

    def set_params(self, params, name=None):
        self.params.update(params)

    def track(self, value, name, epoch=None):
        self.metrics[name].append(value)

    def last(self, name, default=None):
        values = self.metrics.get(name)
        return values[-1] if values else default

    def flush(self):
        if self.repo is None:
            return
        os.makedirs(self.repo, exist_ok=True)
        with open(os.path.join(self.repo, f'{self.experiment}.json'), 'w') as f:
            json.dump({k: [float(v) for v in vs] for k, vs in self.metrics.items()}, f)
