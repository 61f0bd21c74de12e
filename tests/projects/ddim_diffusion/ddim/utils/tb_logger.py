from collections import defaultdict


class ScalarLogger(object):
    """Keeps the scalars of a run in memory (what SummaryWriter would write to the event file)."""

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, scalar_value, global_step=None):
        self.scalars[tag].append((global_step, scalar_value))

    def last(self, tag):
        return float(self.scalars[tag][-1][1])
