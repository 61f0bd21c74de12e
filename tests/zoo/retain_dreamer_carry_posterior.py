# Source: https://github.com/yusukeurakami/dreamer-pytorch/blob/06bfcda71e628ef3e3a2fdcb82b8ae3ab49507a5/main.py
# Shape: model fitting streams consecutive chunks of the same episodes and seeds each chunk with the previous chunk's last belief/posterior state (not detached); the second backward would then fail, so it was silenced with retain_graph=True, and every chunk's transition-model graph stays chained to the carried state.
# Verdict: leak
import argparse

import torch
from torch import nn
from torch.distributions import Normal
from torch.distributions.kl import kl_divergence
from torch.nn import functional as F


def bottle(f, x_tuple):
    # Wraps the input tuple for a function to process a time x batch x features sequence in batch x features
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
        self.fc_embed_belief_prior = nn.Linear(belief_size, hidden_size)
        self.fc_state_prior = nn.Linear(hidden_size, 2 * state_size)
        self.fc_embed_belief_posterior = nn.Linear(belief_size + embedding_size, hidden_size)
        self.fc_state_posterior = nn.Linear(hidden_size, 2 * state_size)

    def forward(self, prev_state, actions, prev_belief, observations, nonterminals):
        T = actions.size(0) + 1
        beliefs, prior_states, prior_means, prior_std_devs = [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T
        posterior_states, posterior_means, posterior_std_devs = [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T
        beliefs[0], prior_states[0], posterior_states[0] = prev_belief, prev_state, prev_state
        for t in range(T - 1):
            _state = posterior_states[t]
            _state = _state * nonterminals[t]
            hidden = F.elu(self.fc_embed_state_action(torch.cat([_state, actions[t]], dim=1)))
            beliefs[t + 1] = self.rnn(hidden, beliefs[t])
            hidden = F.elu(self.fc_embed_belief_prior(beliefs[t + 1]))
            prior_means[t + 1], _prior_std_dev = torch.chunk(self.fc_state_prior(hidden), 2, dim=1)
            prior_std_devs[t + 1] = F.softplus(_prior_std_dev) + self.min_std_dev
            prior_states[t + 1] = prior_means[t + 1] + prior_std_devs[t + 1] * torch.randn_like(prior_means[t + 1])
            hidden = F.elu(self.fc_embed_belief_posterior(torch.cat([beliefs[t + 1], observations[t]], dim=1)))
            posterior_means[t + 1], _posterior_std_dev = torch.chunk(self.fc_state_posterior(hidden), 2, dim=1)
            posterior_std_devs[t + 1] = F.softplus(_posterior_std_dev) + self.min_std_dev
            posterior_states[t + 1] = posterior_means[t + 1] + posterior_std_devs[t + 1] * torch.randn_like(posterior_means[t + 1])
        hidden = [torch.stack(beliefs[1:], dim=0), torch.stack(prior_states[1:], dim=0), torch.stack(prior_means[1:], dim=0), torch.stack(prior_std_devs[1:], dim=0)]
        hidden += [torch.stack(posterior_states[1:], dim=0), torch.stack(posterior_means[1:], dim=0), torch.stack(posterior_std_devs[1:], dim=0)]
        return hidden


class SymbolicEncoder(nn.Module):
    def __init__(self, observation_size, embedding_size):
        super().__init__()
        self.fc1 = nn.Linear(observation_size, embedding_size)
        self.fc2 = nn.Linear(embedding_size, embedding_size)

    def forward(self, observation):
        return self.fc2(F.elu(self.fc1(observation)))


class SymbolicObservationModel(nn.Module):
    def __init__(self, observation_size, belief_size, state_size, embedding_size):
        super().__init__()
        self.fc1 = nn.Linear(belief_size + state_size, embedding_size)
        self.fc2 = nn.Linear(embedding_size, observation_size)

    def forward(self, belief, state):
        return self.fc2(F.elu(self.fc1(torch.cat([belief, state], dim=1))))


class RewardModel(nn.Module):
    def __init__(self, belief_size, state_size, hidden_size):
        super().__init__()
        self.fc1 = nn.Linear(belief_size + state_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, 1)

    def forward(self, belief, state):
        return self.fc2(F.elu(self.fc1(torch.cat([belief, state], dim=1)))).squeeze(dim=1)


class ExperienceReplay:
    """A few long episodes; sample() walks them chunk by chunk (sequential chunks of the same episodes)."""

    def __init__(self, episodes, length, observation_size, action_size):
        g = torch.Generator().manual_seed(7)
        self.observations = torch.randn(length, episodes, observation_size, generator=g)
        self.actions = torch.rand(length, episodes, action_size, generator=g) * 2 - 1
        self.rewards = torch.randn(length, episodes, generator=g)
        self.nonterminals = torch.ones(length, episodes, 1)
        self.length = length

    def sample(self, chunk_index, chunk_size):
        start = (chunk_index * (chunk_size - 1)) % (self.length - chunk_size)
        sl = slice(start, start + chunk_size)
        return self.observations[sl], self.actions[sl], self.rewards[sl], self.nonterminals[sl]


def get_args():
    parser = argparse.ArgumentParser(description='PlaNet or Dreamer')
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--chunk-size', type=int, default=6)
    parser.add_argument('--belief-size', type=int, default=32)
    parser.add_argument('--state-size', type=int, default=16)
    parser.add_argument('--hidden-size', type=int, default=32)
    parser.add_argument('--embedding-size', type=int, default=32)
    parser.add_argument('--free-nats', type=float, default=3)
    parser.add_argument('--model_learning-rate', type=float, default=1e-2)
    parser.add_argument('--grad-clip-norm', type=float, default=100.0)
    return parser.parse_args([])


OBS_SIZE, ACT_SIZE = 12, 3


def make_batches(n):
    # one entry per model-fitting step: which chunk of the stream to fit next
    torch.manual_seed(0)
    return list(range(n))


def run(batches):
    args = get_args()
    transition_model = TransitionModel(args.belief_size, args.state_size, ACT_SIZE, args.hidden_size, args.embedding_size)
    observation_model = SymbolicObservationModel(OBS_SIZE, args.belief_size, args.state_size, args.embedding_size)
    reward_model = RewardModel(args.belief_size, args.state_size, args.hidden_size)
    encoder = SymbolicEncoder(OBS_SIZE, args.embedding_size)
    param_list = list(transition_model.parameters()) + list(observation_model.parameters()) + list(reward_model.parameters()) + list(encoder.parameters())
    lr = args.model_learning_rate  # plain SGD on .data stands in for main.py's Adam optimiser
    free_nats = torch.full((1, ), args.free_nats)
    D = ExperienceReplay(args.batch_size, 400, OBS_SIZE, ACT_SIZE)

    losses = []
    prev_belief = torch.zeros(args.batch_size, args.belief_size)
    prev_state = torch.zeros(args.batch_size, args.state_size)
    for s in batches:
        observations, actions, rewards, nonterminals = D.sample(s, args.chunk_size)
        beliefs, prior_states, prior_means, prior_std_devs, posterior_states, posterior_means, posterior_std_devs = transition_model(
            prev_state, actions[:-1], prev_belief, bottle(encoder, (observations[1:], )), nonterminals[:-1])
        observation_loss = F.mse_loss(bottle(observation_model, (beliefs, posterior_states)), observations[1:], reduction='none').sum(dim=2).mean(dim=(0, 1))
        reward_loss = F.mse_loss(bottle(reward_model, (beliefs, posterior_states)), rewards[:-1], reduction='none').mean(dim=(0, 1))
        kl_loss = torch.max(kl_divergence(Normal(posterior_means, posterior_std_devs), Normal(prior_means, prior_std_devs)).sum(dim=2), free_nats).mean(dim=(0, 1))

        for p in param_list:
            p.grad = None
        (observation_loss + reward_loss + kl_loss).backward(retain_graph=True)  # TLK202
        nn.utils.clip_grad_norm_(param_list, args.grad_clip_norm, norm_type=2)
        for p in param_list:
            p.data.add_(p.grad, alpha=-lr)
        losses.append([observation_loss.item(), reward_loss.item(), kl_loss.item()])

        # continue the next chunk from where this one ended
        prev_belief, prev_state = beliefs[-1], posterior_states[-1]
    return losses
