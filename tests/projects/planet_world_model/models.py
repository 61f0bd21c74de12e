# Modelled on models.py of Kaixhin/PlaNet: bottle(), TransitionModel (the recurrent state-space
# model: deterministic belief h_t from a GRUCell, stochastic prior/posterior states s_t),
# Encoder, ObservationModel and RewardModel, for symbolic (vector) observations. Added: a
# Dreamer-style Actor used for exploration, and world_model_loss, the loss block of PlaNet's
# main.py (observation MSE, reward MSE, KL against the prior with free nats).
import torch
from torch import nn
from torch.distributions import Normal
from torch.distributions.kl import kl_divergence
from torch.nn import functional as F


def bottle(f, x_tuple):
    x_sizes = tuple(map(lambda x: x.size(), x_tuple))
    y = f(*map(lambda x: x[0].view(x[1][0] * x[1][1], *x[1][2:]), zip(x_tuple, x_sizes)))
    y_size = y.size()
    return y.view(x_sizes[0][0], x_sizes[0][1], *y_size[1:])


class TransitionModel(nn.Module):
    def __init__(self, belief_size, state_size, action_size, hidden_size, embedding_size, min_std_dev=0.1):
        super().__init__()
        self.min_std_dev = min_std_dev
        self.fc_embed_state_action = nn.Linear(state_size + action_size, belief_size)
        self.rnn = nn.GRUCell(belief_size, belief_size)
        self.fc_state_prior = nn.Linear(belief_size, 2 * state_size)
        self.fc_state_posterior = nn.Linear(belief_size + embedding_size, 2 * state_size)

    def observe_step(self, prev_state, prev_action, prev_belief, observation_embed=None):
        hidden = F.relu(self.fc_embed_state_action(torch.cat([prev_state, prev_action], dim=1)))
        belief = self.rnn(hidden, prev_belief)
        prior_mean, _prior_std = torch.chunk(self.fc_state_prior(belief), 2, dim=1)
        prior_std = F.softplus(_prior_std) + self.min_std_dev
        if observation_embed is None:
            return belief, prior_mean + prior_std * torch.randn_like(prior_mean), prior_mean, prior_std
        post_mean, _post_std = torch.chunk(self.fc_state_posterior(torch.cat([belief, observation_embed], dim=1)), 2, dim=1)
        post_std = F.softplus(_post_std) + self.min_std_dev
        post_state = post_mean + post_std * torch.randn_like(post_mean)
        return belief, post_state, prior_mean, prior_std, post_mean, post_std

    def forward(self, prev_state, actions, prev_belief, observations):
        beliefs, post_states, prior_means, prior_stds, post_means, post_stds = [], [], [], [], [], []
        state, belief = prev_state, prev_belief
        for t in range(actions.size(0)):
            belief, state, prior_mean, prior_std, post_mean, post_std = self.observe_step(state, actions[t], belief, observations[t])
            beliefs.append(belief)
            post_states.append(state)
            prior_means.append(prior_mean)
            prior_stds.append(prior_std)
            post_means.append(post_mean)
            post_stds.append(post_std)
        return tuple(torch.stack(x, dim=0) for x in (beliefs, post_states, prior_means, prior_stds, post_means, post_stds))


class Encoder(nn.Module):
    def __init__(self, observation_size, embedding_size):
        super().__init__()
        self.fc1 = nn.Linear(observation_size, embedding_size)

    def forward(self, observation):
        return F.relu(self.fc1(observation))


class ObservationModel(nn.Module):
    def __init__(self, observation_size, belief_size, state_size):
        super().__init__()
        self.fc = nn.Linear(belief_size + state_size, observation_size)

    def forward(self, belief, state):
        return self.fc(torch.cat([belief, state], dim=1))


class RewardModel(nn.Module):
    def __init__(self, belief_size, state_size, hidden_size):
        super().__init__()
        self.fc1 = nn.Linear(belief_size + state_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, 1)

    def forward(self, belief, state):
        return self.fc2(F.relu(self.fc1(torch.cat([belief, state], dim=1)))).squeeze(dim=1)


class Actor(nn.Module):
    def __init__(self, belief_size, state_size, action_size):
        super().__init__()
        self.fc = nn.Linear(belief_size + state_size, action_size)

    def forward(self, belief, state):
        return torch.tanh(self.fc(torch.cat([belief, state], dim=1)))


def world_model_loss(observation_model, reward_model, beliefs, posterior_states, prior, posterior, observations, rewards, free_nats):
    observation_loss = F.mse_loss(bottle(observation_model, (beliefs, posterior_states)), observations, reduction='none').sum(dim=2).mean(dim=(0, 1))
    reward_loss = F.mse_loss(bottle(reward_model, (beliefs, posterior_states)), rewards, reduction='none').mean(dim=(0, 1))
    kl_loss = torch.max(kl_divergence(Normal(*posterior), Normal(*prior)).sum(dim=2), free_nats).mean(dim=(0, 1))
    return observation_loss + reward_loss + kl_loss, (observation_loss, reward_loss, kl_loss)  # clean: the sum is backwarded by WorldModelTrainer.train_step
