"""In-memory stand-in for tensorboardX.SummaryWriter.

wenet's init_summarywriter() returns a tensorboardX SummaryWriter on rank 0.
Tensorboard is not a dependency of this trimmed copy, so scalars are kept in
memory (and can be dumped to a tsv at the end of training).
"""
import os
from collections import defaultdict


class ScalarWriter:

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, scalar_value, global_step=None):
        self.scalars[tag].append((global_step, scalar_value))

    def last(self, tag, default=None):
        history = self.scalars.get(tag)
        return history[-1][1] if history else default

    def flush(self):
        if self.log_dir is None:
            return
        os.makedirs(self.log_dir, exist_ok=True)
        with open(os.path.join(self.log_dir, "scalars.tsv"), "w") as f:
            for tag, history in self.scalars.items():
                for step, value in history:
                    f.write("{}\t{}\t{}\n".format(tag, step, float(value)))

    def close(self):
        self.flush()
