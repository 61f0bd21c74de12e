"""Helpers for (possibly nested) namedtuples of tensors, after rlpyt.utils.buffer."""
import torch


def buffer_func(buffer, func, *args, **kwargs):
    if buffer is None:
        return None
    if isinstance(buffer, torch.Tensor):
        return func(buffer, *args, **kwargs)
    contents = tuple(buffer_func(b, func, *args, **kwargs) for b in buffer)
    if hasattr(buffer, "_fields"):
        return type(buffer)(*contents)
    return contents


def buffer_method(buffer, method_name, *args, **kwargs):
    if buffer is None:
        return None
    if isinstance(buffer, torch.Tensor):
        return getattr(buffer, method_name)(*args, **kwargs)
    contents = tuple(buffer_method(b, method_name, *args, **kwargs) for b in buffer)
    if hasattr(buffer, "_fields"):
        return type(buffer)(*contents)
    return contents


def buffer_to(buffer, device=None):
    return buffer_method(buffer, "to", device)
