"""Policies: abstract base class and concrete implementations."""

import numpy as np
import torch as th
from torch import nn

from sb3lite.common.distributions import CategoricalDistribution


class MlpExtractor(nn.Module):
    """
    Constructs an MLP that receives the output from a previous features extractor
    and outputs a latent representation for the policy and a value network.
    """

    def __init__(self, feature_dim: int, net_arch: list[int], activation_fn: type[nn.Module] = nn.Tanh):
        super().__init__()
        policy_net: list[nn.Module] = []
        value_net: list[nn.Module] = []
        last_layer_dim_pi = feature_dim
        last_layer_dim_vf = feature_dim
        for curr_layer_dim in net_arch:
            policy_net.append(nn.Linear(last_layer_dim_pi, curr_layer_dim))
            policy_net.append(activation_fn())
            last_layer_dim_pi = curr_layer_dim
            value_net.append(nn.Linear(last_layer_dim_vf, curr_layer_dim))
            value_net.append(activation_fn())
            last_layer_dim_vf = curr_layer_dim

        self.latent_dim_pi = last_layer_dim_pi
        self.latent_dim_vf = last_layer_dim_vf
        self.policy_net = nn.Sequential(*policy_net)
        self.value_net = nn.Sequential(*value_net)

    def forward(self, features: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        return self.forward_actor(features), self.forward_critic(features)

    def forward_actor(self, features: th.Tensor) -> th.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: th.Tensor) -> th.Tensor:
        return self.value_net(features)


class ActorCriticPolicy(nn.Module):
    """
    Policy class for actor-critic algorithms (has both policy and value prediction).

    :param obs_dim: Observation size
    :param n_actions: Number of discrete actions
    :param lr_schedule: Learning rate schedule (could be constant)
    :param net_arch: The specification of the policy and value networks.
    :param ortho_init: Whether to use or not orthogonal initialization
    """

    def __init__(self, obs_dim: int, n_actions: int, lr_schedule, net_arch: list[int] | None = None,
                 ortho_init: bool = True):
        super().__init__()
        if net_arch is None:
            net_arch = [64, 64]
        self.obs_dim = obs_dim
        self.net_arch = net_arch
        self.ortho_init = ortho_init
        self.action_dist = CategoricalDistribution(n_actions)
        self._build(lr_schedule)

    def _build(self, lr_schedule) -> None:
        self.mlp_extractor = MlpExtractor(self.obs_dim, self.net_arch)
        self.action_net = self.action_dist.proba_distribution_net(self.mlp_extractor.latent_dim_pi)
        self.value_net = nn.Linear(self.mlp_extractor.latent_dim_vf, 1)
        if self.ortho_init:
            module_gains = {
                self.mlp_extractor: np.sqrt(2),
                self.action_net: 0.01,
                self.value_net: 1,
            }
            for module, gain in module_gains.items():
                module.apply(lambda m, g=gain: self.init_weights(m, g))
        self.optimizer = th.optim.Adam(self.parameters(), lr=lr_schedule(1), eps=1e-5)

    @staticmethod
    def init_weights(module: nn.Module, gain: float = 1) -> None:
        """
        Orthogonal initialization (used in PPO and A2C)
        """
        if isinstance(module, nn.Linear):
            nn.init.orthogonal_(module.weight, gain=gain)
            if module.bias is not None:
                module.bias.data.fill_(0.0)

    def set_training_mode(self, mode: bool) -> None:
        self.train(mode)

    def forward(self, obs: th.Tensor, deterministic: bool = False) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """
        Forward pass in all the networks (actor and critic)
        """
        latent_pi, latent_vf = self.mlp_extractor(obs)
        values = self.value_net(latent_vf)
        distribution = self._get_action_dist_from_latent(latent_pi)
        actions = distribution.get_actions(deterministic=deterministic)
        log_prob = distribution.log_prob(actions)
        return actions, values, log_prob

    def _get_action_dist_from_latent(self, latent_pi: th.Tensor) -> CategoricalDistribution:
        mean_actions = self.action_net(latent_pi)
        return self.action_dist.proba_distribution(action_logits=mean_actions)

    def evaluate_actions(self, obs: th.Tensor, actions: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor | None]:
        """
        Evaluate actions according to the current policy,
        given the observations.
        """
        latent_pi, latent_vf = self.mlp_extractor(obs)
        distribution = self._get_action_dist_from_latent(latent_pi)
        log_prob = distribution.log_prob(actions)
        values = self.value_net(latent_vf)
        entropy = distribution.entropy()
        return values, log_prob, entropy

    def predict_values(self, obs: th.Tensor) -> th.Tensor:
        latent_vf = self.mlp_extractor.forward_critic(obs)
        return self.value_net(latent_vf)
