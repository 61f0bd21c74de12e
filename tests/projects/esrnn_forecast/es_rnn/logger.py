from collections import defaultdict


class Logger(object):
    """Minimal in-memory replacement for a tensorboard logger."""

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = defaultdict(list)
        self.forecasts = []

    def log_scalar(self, tag, value, step):
        self.scalars[tag].append((step, value))

    def log_forecast(self, step, forecast):
        """Keep forecasts for plotting against actuals at the end of the run."""
        self.forecasts.append((step, forecast))
