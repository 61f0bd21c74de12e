"""Policies: actor-critic with a shared-input MLP extractor and a categorical action head."""
from typing import Tuple

import torch as th
from torch import nn
from torch.distributions import Categorical


class MlpExtractor(nn.Module):
    def __init__(self, feature_dim: int, net_arch=(64, 64), activation_fn=nn.Tanh):
        super().__init__()
        pi, vf, last = [], [], feature_dim
        for width in net_arch:
            pi += [nn.Linear(last, width), activation_fn()]
            vf += [nn.Linear(last, width), activation_fn()]
            last = width
        self.policy_net = nn.Sequential(*pi)
        self.value_net = nn.Sequential(*vf)
        self.latent_dim_pi = self.latent_dim_vf = last

    def forward(self, features: th.Tensor) -> Tuple[th.Tensor, th.Tensor]:
        return self.policy_net(features), self.value_net(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class ActorCriticPolicy(nn.Module):
    """
    Policy class for actor-critic algorithms (has both policy and value prediction).

    :param obs_dim: Observation dimension
    :param n_actions: Number of discrete actions
    :param lr: Learning rate of the Adam optimizer
    """

    def __init__(self, obs_dim: int, n_actions: int, lr: float = 3e-4, net_arch=(64, 64)):
        super().__init__()
        self.mlp_extractor = MlpExtractor(obs_dim, net_arch)
        self.action_net = nn.Linear(self.mlp_extractor.latent_dim_pi, n_actions)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        self.optimizer = th.optim.Adam(self.parameters(), lr=lr, eps=1e-5)

    def set_training_mode(self, mode: bool) -> None:
        self.train(mode)

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> Categorical:
        return Categorical(logits=self.action_net(latent_pi))

    def forward(self, obs: th.Tensor, deterministic: bool = False):
        latent_pi, latent_vf = self.mlp_extractor(obs)
        values = self.value_net(latent_vf)
        distribution = self._get_action_dist_from_latent(latent_pi)
        actions = distribution.probs.argmax(-1) if deterministic else distribution.sample()
        log_prob = distribution.log_prob(actions)
        return actions, values, log_prob

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor):
        """
        Evaluate actions according to the current policy, given the observations.

        :return: estimated value, log likelihood of taking those actions
            and entropy of the action distribution.
        """
        latent_pi, latent_vf = self.mlp_extractor(obs)
        distribution = self._get_action_dist_from_latent(latent_pi)
        log_prob = distribution.log_prob(actions)
        values = self.value_net(latent_vf)
        entropy = distribution.entropy()
        return values, log_prob, entropy

    def predict_values(self, obs: th.Tensor) -> th.Tensor:
        return self.value_net(self.mlp_extractor.forward_critic(obs))
