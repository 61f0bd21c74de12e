# --------------------------------------------------------
# In-memory stand-in for torch.utils.tensorboard.SummaryWriter
# --------------------------------------------------------
from collections import defaultdict


class ScalarWriter(object):

    def __init__(self, log_dir=None):
        self.log_dir = log_dir
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, scalar_value, global_step=None):
        self.scalars[tag].append((global_step, float(scalar_value)))

    def flush(self):
        pass

    def close(self):
        pass
