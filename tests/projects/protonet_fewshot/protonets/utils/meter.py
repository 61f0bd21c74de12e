"""Running mean of a scalar (the torchnet AverageValueMeter the original script uses)."""
import math


class AverageValueMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.n = 0
        self.sum = 0.0
        self.var = 0.0

    def add(self, value, n=1):
        self.sum += value * n
        self.var += value * value * n
        self.n += n

    def value(self):
        if self.n == 0:
            return math.nan, math.nan
        mean = float(self.sum) / self.n
        std = math.sqrt(max(float(self.var) / self.n - mean ** 2, 0.0))
        return mean, std
