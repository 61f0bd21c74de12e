# Modelled on util/misc.py of facebookresearch/detr (SmoothedValue and MetricLogger): the logger
# keeps one SmoothedValue per keyword in a defaultdict and feeds each keyword argument of
# update(**kwargs) to its meter, which appends it to a window and sums it.
from collections import defaultdict, deque


class SmoothedValue:
    def __init__(self, window_size=20):
        self.deque = deque(maxlen=window_size)
        self.total = 0.0
        self.count = 0

    def update(self, value, n=1):
        self.deque.append(value)
        self.count += n
        self.total += value * n

    @property
    def global_avg(self):
        return self.total / max(self.count, 1)


class MetricLogger:
    def __init__(self, delimiter="  "):
        self.meters = defaultdict(SmoothedValue)
        self.delimiter = delimiter

    def update(self, **kwargs):
        for k, v in kwargs.items():
            self.meters[k].update(v)

    def summary(self):
        return self.delimiter.join(f"{name}: {float(meter.global_avg):.4f}" for name, meter in self.meters.items())
