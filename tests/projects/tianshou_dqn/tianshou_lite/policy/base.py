from abc import ABC, abstractmethod
from typing import Any, Callable, Dict, Optional, Union

import torch
from torch import nn

from tianshou_lite.data.batch import Batch


class BasePolicy(ABC, nn.Module):
    """The base class for any RL policy.

    A policy class typically has the following parts:

    * :meth:`~tianshou.policy.BasePolicy.__init__`: initialize the policy, \
        including coping the target network and so on;
    * :meth:`~tianshou.policy.BasePolicy.forward`: compute action with given \
        observation;
    * :meth:`~tianshou.policy.BasePolicy.process_fn`: pre-process data from the \
        replay buffer (this function can interact with replay buffer);
    * :meth:`~tianshou.policy.BasePolicy.learn`: update policy with a given batch \
        of data.
    * :meth:`~tianshou.policy.BasePolicy.post_process_fn`: update the replay buffer \
        from the learning process (e.g., prioritized replay buffer needs to update \
        the weight);
    """

    def __init__(self, action_scaling: bool = False, action_bound_method: str = "") -> None:
        super().__init__()
        self.agent_id = 0
        self.updating = False
        self.action_scaling = action_scaling
        self.action_bound_method = action_bound_method

    def exploration_noise(self, act: torch.Tensor, batch: Batch) -> torch.Tensor:
        return act

    @abstractmethod
    def forward(
        self,
        batch: Batch,
        state: Optional[Union[dict, Batch, torch.Tensor]] = None,
        **kwargs: Any,
    ) -> Batch:
        """Compute action over the given batch data."""
        pass

    def map_action(self, act: torch.Tensor) -> torch.Tensor:
        return act

    def process_fn(self, batch: Batch, buffer: Any, indices: torch.Tensor) -> Batch:
        return batch

    @abstractmethod
    def learn(self, batch: Batch, **kwargs: Any) -> Dict[str, Any]:
        """Update policy with a given batch of data.

        :return: A dict, including the data needed to be logged (e.g., loss).
        """
        pass

    def post_process_fn(self, batch: Batch, buffer: Any, indices: torch.Tensor) -> None:
        if hasattr(buffer, "update_weight") and "weight" in batch:
            buffer.update_weight(indices, batch.weight)

    def update(self, sample_size: int, buffer: Optional[Any], **kwargs: Any) -> Dict[str, Any]:
        """Update the policy network and replay buffer.

        It includes 3 function steps: process_fn, learn, and post_process_fn.
        """
        if buffer is None:
            return {}
        batch, indices = buffer.sample(sample_size)
        self.updating = True
        batch = self.process_fn(batch, buffer, indices)
        result = self.learn(batch, **kwargs)
        self.post_process_fn(batch, buffer, indices)
        self.updating = False
        return result

    @staticmethod
    def compute_nstep_return(
        batch: Batch,
        buffer: Any,
        indice: torch.Tensor,
        target_q_fn: Callable[[Any, torch.Tensor], torch.Tensor],
        gamma: float = 0.99,
        n_step: int = 1,
    ) -> Batch:
        r"""Compute n-step return for Q-learning targets.

        .. math::
            G_t = \sum_{i = t}^{t + n - 1} \gamma^{i - t}(1 - d_i)r_i +
            \gamma^n (1 - d_{t + n}) Q_{\mathrm{target}}(s_{t + n})
        """
        with torch.no_grad():
            returns = torch.zeros(len(indice))
            discount = torch.ones(len(indice))
            not_done = torch.ones(len(indice))
            idx = indice
            for i in range(n_step):
                returns = returns + not_done * discount * buffer.rew[idx]
                discount = discount * gamma
                not_done = not_done * (1.0 - buffer.done[idx].float())
                if i < n_step - 1:
                    idx = buffer.next(idx)
            target_q = target_q_fn(buffer, idx)
            returns = returns + not_done * discount * target_q
        batch.returns = returns.unsqueeze(1)
        return batch
