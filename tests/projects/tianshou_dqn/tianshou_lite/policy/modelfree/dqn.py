from copy import deepcopy
from typing import Any, Dict, Optional, Union

import torch
import torch.nn.functional as F

from tianshou_lite.data import Batch, ReplayBuffer, to_host, to_torch_as
from tianshou_lite.policy.base import BasePolicy


class DQNPolicy(BasePolicy):
    """Implementation of Deep Q Network. arXiv:1312.5602.

    Implementation of Double Q-Learning. arXiv:1509.06461.

    The TD loss is a Huber loss whose threshold follows a running estimate of
    the Q-value magnitude (``q_scale``), so that the loss stays quadratic for
    typical TD errors whatever the reward scale is.

    :param torch.nn.Module model: a model following the rules in
        :class:`~tianshou.policy.BasePolicy`. (s -> logits)
    :param torch.optim.Optimizer optim: a torch.optim for optimizing the model.
    :param float discount_factor: in [0, 1].
    :param int estimation_step: the number of steps to look ahead. Default to 1.
    :param int target_update_freq: the target network update frequency (0 if
        you do not use the target network). Default to 0.
    :param bool is_double: use double dqn. Default to True.
    :param float q_scale_decay: decay of the running Q-magnitude estimate.
    """

    def __init__(
        self,
        model: torch.nn.Module,
        optim: torch.optim.Optimizer,
        discount_factor: float = 0.99,
        estimation_step: int = 1,
        target_update_freq: int = 0,
        is_double: bool = True,
        q_scale_decay: float = 0.99,
        **kwargs: Any,
    ) -> None:
        super().__init__(**kwargs)
        self.model = model
        self.optim = optim
        self.eps = 0.0
        assert 0.0 <= discount_factor <= 1.0, "discount factor should be in [0, 1]"
        self._gamma = discount_factor
        assert estimation_step > 0, "estimation_step should be greater than 0"
        self._n_step = estimation_step
        self._target = target_update_freq > 0
        self._freq = target_update_freq
        self._iter = 0
        if self._target:
            self.model_old = deepcopy(self.model)
            self.model_old.eval()
        self._is_double = is_double
        self._q_scale_decay = q_scale_decay
        self._q_scale = torch.ones(())

    def set_eps(self, eps: float) -> None:
        """Set the eps for epsilon-greedy exploration."""
        self.eps = eps

    def train(self, mode: bool = True) -> "DQNPolicy":
        """Set the module in training mode, except for the target network."""
        self.training = mode
        self.model.train(mode)
        return self

    def sync_weight(self) -> None:
        """Synchronize the weight for the target network."""
        self.model_old.load_state_dict(self.model.state_dict())

    def _target_q(self, buffer: ReplayBuffer, indices: torch.Tensor) -> torch.Tensor:
        batch = buffer[indices]  # batch.obs_next: s_{t+n}
        result = self(batch, input="obs_next")
        if self._target:
            # target_Q = Q_old(s_, argmax(Q_new(s_, *)))
            target_q = self(batch, model="model_old", input="obs_next").logits
        else:
            target_q = result.logits
        if self._is_double:
            return target_q[torch.arange(len(result.act)), result.act]
        else:  # Nature DQN, over estimate
            return target_q.max(dim=1)[0]

    def process_fn(self, batch: Batch, buffer: ReplayBuffer, indices: torch.Tensor) -> Batch:
        """Compute the n-step return for Q-learning targets."""
        return self.compute_nstep_return(
            batch, buffer, indices, self._target_q, self._gamma, self._n_step
        )

    def forward(
        self,
        batch: Batch,
        state: Optional[Union[dict, Batch, torch.Tensor]] = None,
        model: str = "model",
        input: str = "obs",
        **kwargs: Any,
    ) -> Batch:
        """Compute action over the given batch data.

        :return: A :class:`~tianshou.data.Batch` which has 4 keys:

            * ``act`` the action.
            * ``logits`` the network's raw output.
            * ``state`` the hidden state.
            * ``policy`` the Q value of the greedy action, kept in the buffer
              to initialise priorities / monitor over-estimation.
        """
        model = getattr(self, model)
        obs = batch[input]
        logits, h = model(obs, state=state)
        q_max, act = logits.max(dim=1)
        if not hasattr(self, "max_action_num"):
            self.max_action_num = logits.shape[1]
        return Batch(logits=logits, act=act, state=h, policy=Batch(q=q_max))

    def learn(self, batch: Batch, **kwargs: Any) -> Dict[str, Any]:
        if self._target and self._iter % self._freq == 0:
            self.sync_weight()
        self.optim.zero_grad()
        weight = batch.pop("weight", 1.0)
        logits = self(batch).logits
        self._q_scale = self._q_scale_decay * self._q_scale + (1 - self._q_scale_decay) * logits.abs().mean()  # expect: TLK103
        q = logits[torch.arange(len(logits)), batch.act]
        r = to_torch_as(batch.returns.flatten(), q)
        td = r - q
        delta = max(float(self._q_scale), 1e-3)
        loss = (F.huber_loss(q, r, reduction="none", delta=delta) * weight).mean()
        batch.weight = td  # prio-buffer
        loss.backward()
        self.optim.step()
        self._iter += 1
        return {"loss": loss.item(), "td": td.abs().mean()}

    def exploration_noise(self, act: torch.Tensor, batch: Batch) -> torch.Tensor:
        if self.eps > 0.0:
            act = act.clone()
            bsz = len(act)
            rand_mask = torch.rand(bsz) < self.eps
            rand_act = torch.randint(self.max_action_num, (bsz,))
            act[rand_mask] = rand_act[rand_mask]
        return act
