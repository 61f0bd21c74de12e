# Source: https://github.com/Kaixhin/PlaNet/blob/334c2405cde2962496a5589aaff37f32ea51d4e9/main.py
# Shape: fixed twin: the loop stores observation_loss.item(), reward_loss.item(), kl_loss.item() as the repo does, so the metrics hold floats and each chunk's RSSM graph is freed after backward.
# Verdict: clean
import torch
from torch import nn
from torch.distributions import Normal
from torch.distributions.kl import kl_divergence
from torch.nn import functional as F


def bottle(f, x_tuple):
    # Wraps a function for time x batch inputs
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

    def forward(self, prev_state, actions, prev_belief, observations=None, nonterminals=None):
        T = actions.size(0) + 1
        beliefs, prior_states, prior_means, prior_std_devs = [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T
        posterior_states, posterior_means, posterior_std_devs = [torch.empty(0)] * T, [torch.empty(0)] * T, [torch.empty(0)] * T
        beliefs[0], prior_states[0], posterior_states[0] = prev_belief, prev_state, prev_state
        for t in range(T - 1):
            _state = prior_states[t] if observations is None else posterior_states[t]
            _state = _state if nonterminals is None else _state * nonterminals[t]
            hidden = F.relu(self.fc_embed_state_action(torch.cat([_state, actions[t]], dim=1)))
            beliefs[t + 1] = self.rnn(hidden, beliefs[t])
            hidden = F.relu(self.fc_embed_belief_prior(beliefs[t + 1]))
            prior_means[t + 1], _prior_std_dev = torch.chunk(self.fc_state_prior(hidden), 2, dim=1)
            prior_std_devs[t + 1] = F.softplus(_prior_std_dev) + self.min_std_dev
            prior_states[t + 1] = prior_means[t + 1] + prior_std_devs[t + 1] * torch.randn_like(prior_means[t + 1])
            if observations is not None:
                t_ = t - 1
                hidden = F.relu(self.fc_embed_belief_posterior(torch.cat([beliefs[t + 1], observations[t_ + 1]], dim=1)))
                posterior_means[t + 1], _posterior_std_dev = torch.chunk(self.fc_state_posterior(hidden), 2, dim=1)
                posterior_std_devs[t + 1] = F.softplus(_posterior_std_dev) + self.min_std_dev
                posterior_states[t + 1] = posterior_means[t + 1] + posterior_std_devs[t + 1] * torch.randn_like(posterior_means[t + 1])
        hidden = [torch.stack(beliefs[1:], dim=0), torch.stack(prior_states[1:], dim=0),
                  torch.stack(prior_means[1:], dim=0), torch.stack(prior_std_devs[1:], dim=0)]
        if observations is not None:
            hidden += [torch.stack(posterior_states[1:], dim=0), torch.stack(posterior_means[1:], dim=0),
                       torch.stack(posterior_std_devs[1:], dim=0)]
        return hidden


class SymbolicObservationModel(nn.Module):
    def __init__(self, observation_size, belief_size, state_size, embedding_size):
        super().__init__()
        self.fc1 = nn.Linear(belief_size + state_size, embedding_size)
        self.fc2 = nn.Linear(embedding_size, embedding_size)
        self.fc3 = nn.Linear(embedding_size, observation_size)

    def forward(self, belief, state):
        hidden = F.relu(self.fc1(torch.cat([belief, state], dim=1)))
        hidden = F.relu(self.fc2(hidden))
        return self.fc3(hidden)


class RewardModel(nn.Module):
    def __init__(self, belief_size, state_size, hidden_size):
        super().__init__()
        self.fc1 = nn.Linear(belief_size + state_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, 1)

    def forward(self, belief, state):
        hidden = F.relu(self.fc1(torch.cat([belief, state], dim=1)))
        return self.fc2(hidden).squeeze(dim=1)


class SymbolicEncoder(nn.Module):
    def __init__(self, observation_size, embedding_size):
        super().__init__()
        self.fc1 = nn.Linear(observation_size, embedding_size)
        self.fc2 = nn.Linear(embedding_size, embedding_size)

    def forward(self, observation):
        return F.relu(self.fc2(F.relu(self.fc1(observation))))


class ExperienceReplay():
    """Fixed pool of toy episodes; sample() cuts chunks of length L."""

    def __init__(self, size, observation_size, action_size):
        g = torch.Generator().manual_seed(1)
        self.observations = torch.randn(size, observation_size, generator=g)
        self.actions = torch.rand(size, action_size, generator=g) * 2 - 1
        self.rewards = torch.randn(size, generator=g)
        self.nonterminals = torch.ones(size, 1)
        self.size = size

    def sample(self, n, L, g):
        idxs = torch.randint(0, self.size - L, (n,), generator=g)[:, None] + torch.arange(L)[None, :]
        idxs = idxs.t().reshape(-1)
        return (self.observations[idxs].view(L, n, -1), self.actions[idxs].view(L, n, -1),
                self.rewards[idxs].view(L, n), self.nonterminals[idxs].view(L, n, 1))


class args:
    belief_size = 32
    state_size = 16
    hidden_size = 32
    embedding_size = 32
    batch_size = 8
    chunk_size = 10
    free_nats = 3
    learning_rate = 1e-3
    adam_epsilon = 1e-4
    grad_clip_norm = 1000
    observation_size = 12
    action_size = 3


def make_batches(n):
    # one chunk-sampling seed per collect interval step
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    D = ExperienceReplay(500, args.observation_size, args.action_size)
    transition_model = TransitionModel(args.belief_size, args.state_size, args.action_size, args.hidden_size, args.embedding_size)
    observation_model = SymbolicObservationModel(args.observation_size, args.belief_size, args.state_size, args.embedding_size)
    reward_model = RewardModel(args.belief_size, args.state_size, args.hidden_size)
    encoder = SymbolicEncoder(args.observation_size, args.embedding_size)
    param_list = list(transition_model.parameters()) + list(observation_model.parameters()) + \
        list(reward_model.parameters()) + list(encoder.parameters())
    optimiser = torch.optim.Adam(param_list, lr=args.learning_rate, eps=args.adam_epsilon)
    free_nats = torch.full((1, ), args.free_nats, dtype=torch.float32)
    metrics = {'observation_loss': [], 'reward_loss': [], 'kl_loss': []}

    losses = []
    for s, seed in enumerate(batches):
        g = torch.Generator().manual_seed(seed)
        # Draw sequence chunks {(o_t, a_t, r_t+1, terminal_t+1)} ~ D uniformly at random from the dataset
        observations, actions, rewards, nonterminals = D.sample(args.batch_size, args.chunk_size, g)
        # Create initial belief and state for time t = 0
        init_belief, init_state = torch.zeros(args.batch_size, args.belief_size), torch.zeros(args.batch_size, args.state_size)
        # Update belief/state using posterior from previous belief/state, previous action and current observation
        beliefs, prior_states, prior_means, prior_std_devs, posterior_states, posterior_means, posterior_std_devs = \
            transition_model(init_state, actions[:-1], init_belief, bottle(encoder, (observations[1:], )), nonterminals[:-1])
        # Calculate observation likelihood, reward likelihood and KL losses
        observation_loss = F.mse_loss(bottle(observation_model, (beliefs, posterior_states)), observations[1:], reduction='none').sum(dim=2).mean(dim=(0, 1))
        reward_loss = F.mse_loss(bottle(reward_model, (beliefs, posterior_states)), rewards[:-1], reduction='none').mean(dim=(0, 1))
        kl_loss = torch.max(kl_divergence(Normal(posterior_means, posterior_std_devs), Normal(prior_means, prior_std_devs)).sum(dim=2), free_nats).mean(dim=(0, 1))

        # Update model parameters
        optimiser.zero_grad()
        (observation_loss + reward_loss + kl_loss).backward()
        nn.utils.clip_grad_norm_(param_list, args.grad_clip_norm, norm_type=2)
        optimiser.step()
        # Store (0) observation loss (1) reward loss (2) KL loss
        losses.append([observation_loss.item(), reward_loss.item(), kl_loss.item()])

    # Update and plot loss metrics
    losses = tuple(zip(*losses))
    metrics['observation_loss'].append(losses[0])
    metrics['reward_loss'].append(losses[1])
    metrics['kl_loss'].append(losses[2])
    return metrics
