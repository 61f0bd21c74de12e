"""In-memory stand-in for ``torch.utils.tensorboard.SummaryWriter`` (keeps (timestep, value) per tag)."""
import collections


class SummaryWriter:
    def __init__(self, log_dir: str = "") -> None:
        self.log_dir = log_dir
        self.scalars = collections.defaultdict(list)

    def add_scalar(self, *, tag: str, value: float, timestep: int) -> None:
        self.scalars[tag].append((timestep, float(value)))

    def close(self) -> None:
        pass
