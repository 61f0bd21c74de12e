"""Single-process stand-in for ``accelerate.Accelerator`` plus an in-memory experiment tracker.

Accelerate lets a project register a custom ``GeneralTracker`` (``log_with=[tracker]``);
``Accelerator.log(values, step)`` forwards the dict to every tracker's ``log``.
"""
import collections
import contextlib
from typing import Any, Dict, List, Optional

import torch


class GeneralTracker:
    name = "general"
    requires_logging_directory = False

    def store_init_configuration(self, values: dict):
        pass

    def log(self, values: dict, step: Optional[int] = None, **kwargs):
        raise NotImplementedError

    def finish(self):
        pass


class InMemoryTracker(GeneralTracker):
    """Keeps the latest value and the run mean of every logged scalar (a wandb-style run summary)."""

    name = "memory"

    def __init__(self, run_name: str):
        self.run_name = run_name
        self.config = {}
        self._latest: Dict[str, tuple] = {}
        self._sums: Dict[str, float] = collections.defaultdict(float)
        self._counts: Dict[str, int] = collections.defaultdict(int)

    def store_init_configuration(self, values: dict):
        self.config = dict(values)

    def log(self, values: dict, step: Optional[int] = None, **kwargs):
        for k, v in values.items():
            if isinstance(v, (int, float, torch.Tensor)):
                self._latest[k] = (step, v)
                self._sums[k] += v  # known-miss: TLK101
                self._counts[k] += 1

    def summary(self) -> Dict[str, float]:
        return {k: float(self._latest[k][1]) for k in self._latest}

    def run_means(self) -> Dict[str, float]:
        return {k: float(self._sums[k]) / self._counts[k] for k in self._sums}


class GradientState:
    def __init__(self):
        self.end_of_dataloader = False


class Accelerator:
    def __init__(self, log_with=None, gradient_accumulation_steps: int = 1):
        self.device = torch.device("cpu")
        self.num_processes = 1
        self.is_main_process = True
        self.is_local_main_process = True
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.gradient_state = GradientState()
        self.trackers: List[GeneralTracker] = list(log_with or [])

    def init_trackers(self, project_name: str, config: Optional[dict] = None, init_kwargs: Optional[dict] = None):
        for tracker in self.trackers:
            tracker.store_init_configuration(config or {})

    def get_tracker(self, name: str) -> GeneralTracker:
        for tracker in self.trackers:
            if tracker.name == name:
                return tracker
        raise KeyError(name)

    def log(self, values: dict, step: Optional[int] = None, log_kwargs: Optional[dict] = None):
        for tracker in self.trackers:
            tracker.log(values, step=step, **(log_kwargs or {}))

    def end_training(self):
        for tracker in self.trackers:
            tracker.finish()

    def prepare(self, *args):
        return args if len(args) > 1 else args[0]

    def prepare_data_loader(self, loader):
        return loader

    def unwrap_model(self, model):
        return model

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    @contextlib.contextmanager
    def no_sync(self, model):
        yield

    def gather(self, tensor):
        return tensor

    def gather_for_metrics(self, x):
        return x

    def pad_across_processes(self, tensor, dim=0, pad_index=0, pad_first=False):
        return tensor

    def wait_for_everyone(self):
        pass
