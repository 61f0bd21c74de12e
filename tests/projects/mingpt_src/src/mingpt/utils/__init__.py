from .tracking import LossTracker, running_mean
