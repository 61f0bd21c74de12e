"""
Training diagnostics for the PINN runs.  The original module draws with
matplotlib; here the data that would be drawn is collected and can be dumped
to an .npz file (loss curves, field snapshots for an animation, and the
per-layer histograms of back-propagated gradients used to diagnose
stiffness between loss terms).
"""
from collections import defaultdict

import numpy as np
import torch


class matplotlib_vision(object):

    def __init__(self, log_dir, input_name=('x',), field_name=('f',)):
        self.log_dir = log_dir
        self.field_name = field_name
        self.input_name = input_name
        self.curves = defaultdict(list)
        self.snapshots = []
        self.grad_hist = defaultdict(list)

    def plot_loss(self, x, y, label, title=None):
        self.curves[label] = (np.asarray(x), np.asarray(y))

    def add_snapshot(self, iteration, field):
        """Keep the predicted field every few iterations for the training animation."""
        self.snapshots.append((iteration, field))  # expect: TLK102

    def record_gradients(self, tag, grads):
        """Store the back-propagated gradients of one loss term (one entry per
        weight matrix) so their histograms can be compared across terms."""
        for k, g in enumerate(grads):
            self.grad_hist[f"{tag}/layer{k}"].append(g.flatten())  # expect: TLK301

    def histogram(self, key, bins=30):
        values = torch.cat([g.detach() for g in self.grad_hist[key]]).numpy()
        return np.histogram(values, bins=bins)

    def save(self, path):
        arrays = {f"curve_{k}": np.stack(v) for k, v in self.curves.items()}
        for i, (it, field) in enumerate(self.snapshots):
            arrays[f"snap_{it}"] = field.detach().cpu().numpy()
        np.savez(path, **arrays)
