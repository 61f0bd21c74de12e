import contextlib
import os
from abc import ABCMeta, abstractmethod, abstractproperty
from typing import Any, List, Optional, Sequence, Tuple

import torch


class Agent(object, metaclass=ABCMeta):
    """Abstract agent class."""

    training = True

    @abstractmethod
    def act(self, obs: Any) -> Any:
        raise NotImplementedError()

    @abstractmethod
    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        raise NotImplementedError()

    @abstractmethod
    def save(self, dirname: str) -> None:
        pass

    @abstractmethod
    def load(self, dirname: str) -> None:
        pass

    @abstractmethod
    def get_statistics(self) -> List[Tuple[str, Any]]:
        pass

    @contextlib.contextmanager
    def eval_mode(self):
        orig_mode = self.training
        try:
            self.training = False
            yield
        finally:
            self.training = orig_mode


class AttributeSavingMixin(object):
    """Mixin that provides save and load functionalities."""

    @abstractproperty
    def saved_attributes(self) -> Tuple[str, ...]:
        pass

    def save(self, dirname: str) -> None:
        os.makedirs(dirname, exist_ok=True)
        for attr in self.saved_attributes:
            attr_value = getattr(self, attr)
            if attr_value is None:
                continue
            torch.save(attr_value.state_dict(), os.path.join(dirname, "{}.pt".format(attr)))

    def load(self, dirname: str) -> None:
        for attr in self.saved_attributes:
            attr_value = getattr(self, attr)
            if attr_value is None:
                continue
            attr_value.load_state_dict(torch.load(os.path.join(dirname, "{}.pt".format(attr))))


class BatchAgent(Agent, metaclass=ABCMeta):
    """Abstract agent class that can interact with a batch of envs."""

    def act(self, obs: Any) -> Any:
        return self.batch_act([obs])[0]

    def observe(self, obs: Any, reward: float, done: bool, reset: bool) -> None:
        return self.batch_observe([obs], [reward], [done], [reset])

    @abstractmethod
    def batch_act(self, batch_obs: Sequence[Any]) -> Sequence[Any]:
        raise NotImplementedError()

    @abstractmethod
    def batch_observe(self, batch_obs, batch_reward, batch_done, batch_reset) -> None:
        raise NotImplementedError()
