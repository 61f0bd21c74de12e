"""Policy, value function and the GAIL discriminator (with a gradient penalty on interpolates)."""
import math

import torch
from torch import nn
import torch.nn.functional as F


def build_mlp(input_dim, output_dim, hidden_units=(64, 64), hidden_activation=nn.Tanh()):
    layers = []
    units = input_dim
    for next_units in hidden_units:
        layers.append(nn.Linear(units, next_units))
        layers.append(hidden_activation)
        units = next_units
    layers.append(nn.Linear(units, output_dim))
    return nn.Sequential(*layers)


def calculate_log_pi(log_stds, noises, actions):
    gaussian_log_probs = (-0.5 * noises.pow(2) - log_stds).sum(dim=-1, keepdim=True) - 0.5 * math.log(2 * math.pi) * log_stds.size(-1)
    return gaussian_log_probs - torch.log(1 - actions.pow(2) + 1e-6).sum(dim=-1, keepdim=True)


def reparameterize(means, log_stds):
    noises = torch.randn_like(means)
    us = means + noises * log_stds.exp()
    actions = torch.tanh(us)
    return actions, calculate_log_pi(log_stds, noises, actions)


def evaluate_lop_pi(means, log_stds, actions):
    noises = (torch.atanh(actions.clamp(-0.999, 0.999)) - means) / (log_stds.exp() + 1e-8)
    return calculate_log_pi(log_stds, noises, actions)


class StateIndependentPolicy(nn.Module):
    def __init__(self, state_shape, action_shape, hidden_units=(64, 64)):
        super().__init__()
        self.net = build_mlp(state_shape[0], action_shape[0], hidden_units)
        self.log_stds = nn.Parameter(torch.zeros(1, action_shape[0]))

    def forward(self, states):
        return torch.tanh(self.net(states))

    def sample(self, states):
        return reparameterize(self.net(states), self.log_stds)

    def evaluate_log_pi(self, states, actions):
        return evaluate_lop_pi(self.net(states), self.log_stds, actions)


class StateFunction(nn.Module):
    def __init__(self, state_shape, hidden_units=(64, 64)):
        super().__init__()
        self.net = build_mlp(state_shape[0], 1, hidden_units)

    def forward(self, states):
        return self.net(states)


class GAILDiscrim(nn.Module):
    def __init__(self, state_shape, action_shape, hidden_units=(100, 100)):
        super().__init__()
        self.net = build_mlp(state_shape[0] + action_shape[0], 1, hidden_units)

    def forward(self, states, actions):
        return self.net(torch.cat([states, actions], dim=-1))

    def calculate_reward(self, states, actions):
        # PPO(GAIL) is to maximize E_{\pi} [-log(1 - D)].
        with torch.no_grad():
            return -F.logsigmoid(-self.forward(states, actions))

    def gradient_penalty(self, states_exp, actions_exp, states, actions):
        alpha = torch.rand(states.size(0), 1)
        interp_states = (alpha * states_exp + (1 - alpha) * states).requires_grad_(True)
        interp_actions = (alpha * actions_exp + (1 - alpha) * actions).requires_grad_(True)
        disc = self.forward(interp_states, interp_actions)
        grads = torch.autograd.grad(
            outputs=disc, inputs=[interp_states, interp_actions], grad_outputs=torch.ones_like(disc), create_graph=True
        )
        grad = torch.cat(grads, dim=-1)
        return (grad.norm(2, dim=1) - 1).pow(2).mean()
