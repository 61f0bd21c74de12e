import dataclasses
from typing import Any, Callable, TypeVar

import torch
from torch import nn

__all__ = ["TorchMiniBatch", "soft_sync", "hard_sync", "eval_api", "train_api", "Modules"]

BoundModules = TypeVar("BoundModules", bound="Modules")


def soft_sync(targ_model: nn.Module, model: nn.Module, tau: float) -> None:
    with torch.no_grad():
        params = model.parameters()
        targ_params = targ_model.parameters()
        for p, p_targ in zip(params, targ_params):
            p_targ.data.mul_(1 - tau)
            p_targ.data.add_(tau * p.data)


def hard_sync(targ_model: nn.Module, model: nn.Module) -> None:
    with torch.no_grad():
        for p, p_targ in zip(model.parameters(), targ_model.parameters()):
            p_targ.data.copy_(p.data)


@dataclasses.dataclass(frozen=True)
class Modules:
    def freeze(self) -> None:
        for v in dataclasses.asdict(self).values():
            if isinstance(v, nn.Module):
                for p in v.parameters():
                    p.requires_grad = False

    def set_eval(self) -> None:
        for field in dataclasses.fields(self):
            v = getattr(self, field.name)
            if isinstance(v, nn.Module):
                v.eval()

    def set_train(self) -> None:
        for field in dataclasses.fields(self):
            v = getattr(self, field.name)
            if isinstance(v, nn.Module):
                v.train()


@dataclasses.dataclass(frozen=True)
class TorchMiniBatch:
    observations: torch.Tensor
    actions: torch.Tensor
    rewards: torch.Tensor
    next_observations: torch.Tensor
    terminals: torch.Tensor
    intervals: torch.Tensor
    device: str

    @classmethod
    def from_batch(cls, batch: Any, device: str) -> "TorchMiniBatch":
        return TorchMiniBatch(
            observations=batch.observations.to(device),
            actions=batch.actions.to(device),
            rewards=batch.rewards.to(device),
            next_observations=batch.next_observations.to(device),
            terminals=batch.terminals.to(device),
            intervals=batch.intervals.to(device),
            device=device,
        )


F = TypeVar("F", bound=Callable[..., Any])


def eval_api(f: F) -> F:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.modules.set_eval()
        return f(self, *args, **kwargs)

    return wrapper  # type: ignore


def train_api(f: F) -> F:
    def wrapper(self: Any, *args: Any, **kwargs: Any) -> Any:
        self.modules.set_train()
        return f(self, *args, **kwargs)

    return wrapper  # type: ignore
