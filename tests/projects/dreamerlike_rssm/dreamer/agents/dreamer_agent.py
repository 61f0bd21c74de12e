from typing import NamedTuple, Optional

import torch

from dreamer.models.agent import AgentModel
from dreamer.models.rnns import RSSMState
from dreamer.utils.buffer import buffer_func, buffer_to


class DreamerAgentInfo(NamedTuple):
    prev_state: RSSMState


class AgentStep(NamedTuple):
    action: torch.Tensor
    agent_info: DreamerAgentInfo


class DreamerAgent:
    def __init__(self, ModelCls=AgentModel, train_noise=0.4, eval_noise=0.0, expl_type="additive_gaussian",
                 expl_min=0.1, expl_decay=7000, model_kwargs=None, seed=0):
        self.train_noise = train_noise
        self.eval_noise = eval_noise
        self.expl_type = expl_type
        self.expl_min = expl_min
        self.expl_decay = expl_decay
        self.model = ModelCls(**(model_kwargs or {}))
        self.device = torch.device("cpu")
        self._mode = "train"
        self._itr = 0
        self._g = torch.Generator().manual_seed(seed + 1)
        self.prev_rnn_state: Optional[RSSMState] = None

    def reset(self):
        self.prev_rnn_state = None

    def sample_mode(self, itr):
        self._mode = "sample"
        self._itr = itr

    def __call__(self, observation, prev_action, init_rnn_state):
        model_inputs = buffer_to((observation, prev_action, init_rnn_state), device=self.device)
        return self.model(*model_inputs)

    def step(self, observation, prev_action, prev_reward):
        """Compute the policy's action from inputs, sample an action (with
        exploration noise) and advance the recurrent state of the agent."""
        model_inputs = buffer_to((observation, prev_action), device=self.device)
        action, action_dist, state = self.model(*model_inputs, self.prev_rnn_state)
        action = self.exploration(action)
        prev_state = self.prev_rnn_state or buffer_func(state, torch.zeros_like)
        self.prev_rnn_state = state  # expect: TLK103
        agent_info = DreamerAgentInfo(prev_state=prev_state)
        return AgentStep(action=action, agent_info=agent_info)

    def exploration(self, action: torch.Tensor) -> torch.Tensor:
        if self._mode in ["train", "sample"]:
            expl_amount = self.train_noise
            if self.expl_decay:
                expl_amount = expl_amount - self._itr / self.expl_decay
            if self.expl_min:
                expl_amount = max(self.expl_min, expl_amount)
        elif self._mode == "eval":
            expl_amount = self.eval_noise
        else:
            raise NotImplementedError
        if self.expl_type == "additive_gaussian":
            noise = torch.randn(*action.shape, generator=self._g) * expl_amount
            return torch.clamp(action + noise, -1, 1)
        raise NotImplementedError(self.expl_type)
