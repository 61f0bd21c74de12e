from typing import SupportsFloat


class Mean:
    """The standalone mean metric.

    This utility metric is a general purpose metric that can be used to keep
    track of the mean of a sequence of values.
    """

    def __init__(self):
        self.summed: float = 0.0
        self.weight: float = 0.0

    def update(self, value: SupportsFloat, weight: SupportsFloat = 1.0) -> None:
        """Update the running mean given the value."""
        value = float(value)
        weight = float(weight)
        self.summed += value * weight
        self.weight += weight

    def result(self) -> float:
        if self.weight == 0.0:
            return 0.0
        return self.summed / self.weight

    def reset(self) -> None:
        self.summed = 0.0
        self.weight = 0.0

    def __add__(self, other: "Mean") -> "Mean":
        res = Mean()
        res.summed = self.summed + other.summed
        res.weight = self.weight + other.weight
        return res


class Sum:
    """The standalone sum metric (always a float)."""

    def __init__(self):
        self.summed: float = 0.0

    def update(self, value: SupportsFloat) -> None:
        self.summed += float(value)

    def result(self) -> float:
        return self.summed

    def reset(self) -> None:
        self.summed = 0.0
