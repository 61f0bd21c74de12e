import logging
import time
from collections import defaultdict
from contextlib import contextmanager
from typing import Any, DefaultDict, Dict, Iterator, List, Tuple

__all__ = ["LOG", "D3RLPyLogger", "InMemoryAdapter", "InMemoryAdapterFactory"]

LOG = logging.getLogger("d3rlpy")


class InMemoryAdapter:
    """LoggerAdapter that keeps every committed metric (handy in notebooks / tests)."""

    def __init__(self, experiment_name: str):
        self.experiment_name = experiment_name
        self.params: Dict[str, Any] = {}
        self.history: DefaultDict[str, List[Tuple[int, int, float]]] = defaultdict(list)

    def write_params(self, params: Dict[str, Any]) -> None:
        self.params.update(params)

    def before_write_metric(self, epoch: int, step: int) -> None:
        pass

    def write_metric(self, epoch: int, step: int, name: str, value: float) -> None:
        self.history[name].append((epoch, step, value))

    def after_write_metric(self, epoch: int, step: int) -> None:
        pass

    def save_model(self, epoch: int, algo: Any) -> None:
        pass

    def close(self) -> None:
        pass


class InMemoryAdapterFactory:
    def create(self, experiment_name: str) -> InMemoryAdapter:
        return InMemoryAdapter(experiment_name)


class D3RLPyLogger:
    def __init__(self, adapter_factory: Any, experiment_name: str):
        self._experiment_name = experiment_name
        self._adapter = adapter_factory.create(experiment_name)
        self._metrics_buffer: DefaultDict[str, List[float]] = defaultdict(list)

    def add_params(self, params: Dict[str, Any]) -> None:
        self._adapter.write_params(params)

    def add_metric(self, name: str, value: float) -> None:
        self._metrics_buffer[name].append(value)

    def commit(self, epoch: int, step: int) -> Dict[str, float]:
        self._adapter.before_write_metric(epoch, step)
        metrics = {}
        for name, buffer in self._metrics_buffer.items():
            metric = sum(buffer) / len(buffer)
            self._adapter.write_metric(epoch, step, name, metric)
            metrics[name] = metric
        LOG.info("%s: epoch=%d step=%d metrics=%s", self._experiment_name, epoch, step, metrics)
        self._adapter.after_write_metric(epoch, step)
        self._metrics_buffer.clear()
        return metrics

    def close(self) -> None:
        self._adapter.close()

    @contextmanager
    def measure_time(self, name: str) -> Iterator[None]:
        name = "time_" + name
        start = time.time()
        try:
            yield
        finally:
            self.add_metric(name, time.time() - start)

    @property
    def adapter(self) -> Any:
        return self._adapter
