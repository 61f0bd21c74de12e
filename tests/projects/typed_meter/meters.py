# Layout modelled on pytorch/examples imagenet (github.com/pytorch/examples): the meter lives in
# its own module, and the typed epoch function names its class only in an annotation.


class RunningAverage:
    def __init__(self) -> None:
        self.total = 0.0
        self.count = 0

    def add(self, value, n: int = 1) -> None:
        self.total += value * n
        self.count += n

    @property
    def average(self) -> float:
        return float(self.total) / max(self.count, 1)
