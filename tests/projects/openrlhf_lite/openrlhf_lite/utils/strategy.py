# Single-process stand-in for openrlhf/utils/deepspeed/deepspeed.py::DeepspeedStrategy.
import random

import torch
import torch.nn as nn
import torch.optim as optim

from openrlhf_lite.models import Actor


class NaiveStrategy:
    def __init__(self, seed: int = 42, max_norm: float = 0.0, micro_train_batch_size=1,
                 train_batch_size=1, args=None):
        self.seed = seed
        self.max_norm = max_norm
        self.micro_train_batch_size = micro_train_batch_size
        self.train_batch_size = train_batch_size
        self.args = args
        self.world_size = 1
        self.accumulated_gradient = max(1, train_batch_size // micro_train_batch_size)
        self._micro_steps = {}

    def setup_distributed(self):
        random.seed(self.seed)
        torch.manual_seed(self.seed)

    def create_optimizer(self, model, **kwargs) -> optim.Optimizer:
        if isinstance(model, Actor):
            model = model.model
        return optim.AdamW(model.parameters(), **kwargs)

    def backward(self, loss: torch.Tensor, model: nn.Module, optimizer: optim.Optimizer, **kwargs) -> None:
        if isinstance(model, Actor):
            model = model.model
        (loss / self.accumulated_gradient).backward()

    def optimizer_step(self, optimizer: optim.Optimizer, model: nn.Module, scheduler, name="model", **kwargs) -> None:
        if isinstance(model, Actor):
            model = model.model
        step = self._micro_steps.get(name, 0) + 1
        self._micro_steps[name] = step
        if step % self.accumulated_gradient != 0:
            return
        if self.max_norm > 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), self.max_norm)
        optimizer.step()
        if scheduler is not None:
            scheduler.step()
        optimizer.zero_grad()

    def moving_average(self, model, model_ema, beta=0.992, device="cpu"):
        with torch.no_grad():
            for param, param_ema in zip(model.parameters(), model_ema.parameters()):
                if param.requires_grad:
                    data = param.data.to(device)
                    param_ema.data.copy_((1 - beta) * data + beta * param_ema.data)

    def all_reduce(self, data, op="mean"):
        # world_size == 1: identity, keeps the structure of the real implementation
        if isinstance(data, dict):
            return {k: self.all_reduce(v, op) for k, v in data.items()}
        return data

    def print(self, *msg):
        pass

    def is_rank_0(self) -> bool:
        return True


def get_strategy(args):
    return NaiveStrategy(seed=getattr(args, "seed", 42), max_norm=getattr(args, "max_norm", 1.0),
                         micro_train_batch_size=getattr(args, "micro_train_batch_size", 1),
                         train_batch_size=getattr(args, "train_batch_size", 128), args=args)
