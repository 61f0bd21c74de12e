# Modelled on utils.py of jaywalnut310/vits (summarize() writes a dict of scalars to a
# SummaryWriter; get_logger()). Here summarize() also keeps every scalar in a module-level
# history for the end-of-run plots, and a small tracker sums named losses for the epoch line.
import logging
from collections import defaultdict

logging.basicConfig(level=logging.WARNING)
logger = logging.getLogger("vits")

# tag -> [(step, value)], read by plot_history() at the end of the run.
SCALAR_HISTORY = defaultdict(list)


def summarize(writer, global_step, scalars={}, histograms={}):
  for k, v in scalars.items():
    SCALAR_HISTORY[k].append((global_step, v))
    if writer is not None:
      writer.add_scalar(k, v, global_step)
  for k, v in histograms.items():
    if writer is not None:
      writer.add_histogram(k, v, global_step)


def plot_history(tag):
  return [(step, float(value)) for step, value in SCALAR_HISTORY[tag]]


class LossTracker:
  """Sums named losses over an epoch; means() gives the epoch's averages."""

  def __init__(self):
    self.totals = {}
    self.counts = {}

  def add(self, **losses):
    for name, value in losses.items():
      self.totals[name] = self.totals.get(name, 0.0) + value
      self.counts[name] = self.counts.get(name, 0) + 1

  def means(self):
    return {name: self.totals[name] / self.counts[name] for name in self.totals}
