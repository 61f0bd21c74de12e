from typing import Any, Optional, Union

import torch

from tianshou_lite.data.batch import Batch


def to_host(x: Any) -> Any:
    """Return an object without any gradient history (detached, on CPU).

    This plays the role of ``tianshou.data.to_numpy`` in this numpy-free port.
    """
    if isinstance(x, torch.Tensor):
        return x.detach().cpu()
    if isinstance(x, Batch):
        return Batch({k: to_host(v) for k, v in x.items()})
    if isinstance(x, dict):
        return {k: to_host(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return type(x)(to_host(v) for v in x)
    return x


def to_torch(
    x: Any,
    dtype: Optional[torch.dtype] = None,
    device: Union[str, int, torch.device] = "cpu",
) -> Any:
    """Return an object without np.ndarray."""
    if isinstance(x, torch.Tensor):
        if dtype is not None:
            x = x.type(dtype)
        return x.to(device)
    if isinstance(x, (int, float, bool, list)):
        return torch.as_tensor(x, dtype=dtype, device=device)
    if isinstance(x, Batch):
        return Batch({k: to_torch(v, dtype, device) for k, v in x.items()})
    return x


def to_torch_as(x: Any, y: torch.Tensor) -> Any:
    """Return an object without np.ndarray. Same as ``to_torch(x, dtype=y.dtype, device=y.device)``."""
    assert isinstance(y, torch.Tensor)
    return to_torch(x, dtype=y.dtype, device=y.device)
