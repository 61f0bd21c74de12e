""" Feature statistics extraction via forward hooks

Inspired by timm.utils.AttentionExtract: register hooks on named modules and
collect per-module activation statistics while the model runs.
"""
import fnmatch
from collections import defaultdict

import torch


class FeatureStatsExtract:
    def __init__(self, model, names=('layer*',)):
        self.model = model
        self.names = names
        self.history = defaultdict(list)
        self.last_eval = {}
        self._handles = []
        matched = [n for n, _ in model.named_modules() if n and any(fnmatch.fnmatch(n, p) for p in names)]
        modules = dict(model.named_modules())
        for name in matched:
            self._handles.append(modules[name].register_forward_hook(self._make_hook(name)))

    def _make_hook(self, name):
        def _hook(module, inputs, output):
            if module.training:
                # mean absolute activation, tracked every training step
                self.history[name].append(output.abs().mean())  # expect: TLK102
            else:
                with torch.no_grad():
                    self.last_eval[name] = output.abs().mean()
        return _hook

    def summary(self):
        return {k: float(sum(float(x) for x in v) / max(len(v), 1)) for k, v in self.history.items()}

    def remove(self):
        for h in self._handles:
            h.remove()
        self._handles = []
