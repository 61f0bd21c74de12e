"""CustomWriter: tensorboard-free training record (TorchSSL custom_writer.py, trimmed).
stats[epoch][mode][tag] = value; dump_stats() writes them as json."""
import datetime
import json
import os


class CustomWriter(object):

    def __init__(self, log_dir, enabled=True):
        self.enabled = enabled
        self.stats = {}
        self.log_dir = str(log_dir) if log_dir is not None else None
        self.epoch = 0
        self.mode = None
        self.timer = datetime.datetime.now()

    def dump_stats(self):
        if self.log_dir is None:
            return
        os.makedirs(self.log_dir, exist_ok=True)
        with open(f"{self.log_dir}/log", "w") as f:
            json.dump(self.stats, f, indent=4, ensure_ascii=False, separators=(",", ": "))

    def set_epoch(self, epoch, mode):
        if epoch == 0:
            self.timer = datetime.datetime.now()
        elif epoch != self.epoch:
            duration = datetime.datetime.now() - self.timer
            second_per_epoch = duration.total_seconds() / (epoch - self.epoch)
            self.epoch, self.mode = epoch, mode
            self.add_scalar(tag='second_per_epoch', data=second_per_epoch)
        self.epoch = epoch
        self.mode = mode

    def get_epoch(self) -> int:
        return self.epoch

    def add_scalar(self, tag, data):
        self.stats.setdefault(self.epoch, {}).setdefault(self.mode, {})[tag] = data

    def plot_stats(self):
        pass
