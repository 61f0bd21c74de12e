from typing import Any, Dict, Iterator, Tuple

import torch


class Batch:
    """A tiny version of :class:`tianshou.data.Batch`: an attribute dict whose
    values are tensors (or nested Batch) sharing the first dimension."""

    def __init__(self, batch_dict: Dict[str, Any] = None, **kwargs: Any) -> None:
        if batch_dict is not None:
            kwargs = {**batch_dict, **kwargs}
        for k, v in kwargs.items():
            self.__dict__[k] = Batch(v) if isinstance(v, dict) else v

    def __setattr__(self, key: str, value: Any) -> None:
        self.__dict__[key] = Batch(value) if isinstance(value, dict) else value

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, str):
            return self.__dict__[index]
        return Batch({k: v[index] for k, v in self.__dict__.items() if v is not None})

    def __setitem__(self, key: str, value: Any) -> None:
        self.__setattr__(key, value)

    def __contains__(self, key: str) -> bool:
        return key in self.__dict__

    def __len__(self) -> int:
        for v in self.__dict__.values():
            if isinstance(v, (torch.Tensor, Batch)) and len(v) > 0:
                return len(v)
        return 0

    def keys(self):
        return self.__dict__.keys()

    def values(self):
        return self.__dict__.values()

    def items(self) -> Iterator[Tuple[str, Any]]:
        return iter(self.__dict__.items())

    def get(self, key: str, default: Any = None) -> Any:
        return self.__dict__.get(key, default)

    def pop(self, key: str, default: Any = None) -> Any:
        return self.__dict__.pop(key, default)

    def update(self, batch: Any = None, **kwargs: Any) -> None:
        if batch is not None:
            for k, v in batch.items():
                self.__setattr__(k, v)
        for k, v in kwargs.items():
            self.__setattr__(k, v)

    def is_empty(self) -> bool:
        return len(self.__dict__) == 0

    def __repr__(self) -> str:
        inner = ", ".join(f"{k}={getattr(v, 'shape', v)}" for k, v in self.items())
        return f"Batch({inner})"
