# Source: https://github.com/pytorch/rl/pull/341
# Shape: the Dreamer step appends every imagined latent state and reward to Python lists during the imagination rollout and carries the posterior state across observation steps, but the lists are stacked and consumed by the actor loss in the same step, the imagination starts from posterior.detach(), the value loss uses detached targets, and only .item() values are logged.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class RSSMPrior(nn.Module):
    def __init__(self, state_dim=32, action_dim=4, hidden=64):
        super().__init__()
        self.action_state_projector = nn.Linear(state_dim + action_dim, hidden)
        self.rnn = nn.GRUCell(hidden, state_dim)

    def forward(self, state, action):
        x = F.elu(self.action_state_projector(torch.cat([state, action], dim=-1)))
        return self.rnn(x, state)


class RSSMPosterior(nn.Module):
    def __init__(self, state_dim=32, obs_embed_dim=32):
        super().__init__()
        self.obs_rnn = nn.Linear(state_dim + obs_embed_dim, state_dim)

    def forward(self, prior_state, obs_embedding):
        return torch.tanh(self.obs_rnn(torch.cat([prior_state, obs_embedding], dim=-1)))


class WorldModel(nn.Module):
    def __init__(self, obs_dim=24, state_dim=32, action_dim=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(obs_dim, 64), nn.ELU(), nn.Linear(64, state_dim))
        self.decoder = nn.Sequential(nn.Linear(state_dim, 64), nn.ELU(), nn.Linear(64, obs_dim))
        self.reward_model = nn.Sequential(nn.Linear(state_dim, 64), nn.ELU(), nn.Linear(64, 1))
        self.prior = RSSMPrior(state_dim, action_dim)
        self.posterior = RSSMPosterior(state_dim, state_dim)


def imagine(world_model, actor, start_state, horizon):
    states, rewards = [], []
    state = start_state
    for _ in range(horizon):
        action = torch.tanh(actor(state))
        state = world_model.prior(state, action)
        states.append(state)
        rewards.append(world_model.reward_model(state))
    return torch.stack(states), torch.stack(rewards)


def lambda_returns(rewards, values, gamma=0.99, lmbda=0.95):
    returns = []
    next_return = values[-1]
    for t in reversed(range(rewards.shape[0])):
        next_return = rewards[t] + gamma * ((1 - lmbda) * values[t] + lmbda * next_return)
        returns.append(next_return)
    return torch.stack(returns[::-1])


def make_batches(n):
    g = torch.Generator().manual_seed(341)
    return [(torch.randn(5, 16, 24, generator=g), torch.randn(5, 16, 4, generator=g).clamp(-1, 1),
             torch.randn(5, 16, 1, generator=g)) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    world_model = WorldModel()
    actor = nn.Sequential(nn.Linear(32, 64), nn.ELU(), nn.Linear(64, 4))
    value_model = nn.Sequential(nn.Linear(32, 64), nn.ELU(), nn.Linear(64, 1))
    world_model_opt = torch.optim.Adam(world_model.parameters(), lr=6e-4)
    actor_opt = torch.optim.Adam(actor.parameters(), lr=8e-5)
    value_opt = torch.optim.Adam(value_model.parameters(), lr=8e-5)
    log = {"model": [], "actor": [], "value": []}
    for obs, actions, rewards in batches:
        state = torch.zeros(16, 32)
        posteriors, model_loss = [], 0.0
        for t in range(obs.shape[0]):
            prior_state = world_model.prior(state, actions[t])
            state = world_model.posterior(prior_state, world_model.encoder(obs[t]))
            posteriors.append(state)
            model_loss = model_loss + F.mse_loss(world_model.decoder(state), obs[t]) \
                + F.mse_loss(world_model.reward_model(state), rewards[t])
        world_model_opt.zero_grad()
        model_loss.backward()
        world_model_opt.step()

        start = torch.cat(posteriors).detach()
        imag_states, imag_rewards = imagine(world_model, actor, start, horizon=5)
        values = value_model(imag_states)
        returns = lambda_returns(imag_rewards, values)
        actor_loss = -returns.mean()
        actor_opt.zero_grad()
        actor_loss.backward()
        actor_opt.step()

        value_pred = value_model(imag_states.detach())
        value_loss = F.mse_loss(value_pred, returns.detach())
        value_opt.zero_grad()
        value_loss.backward()
        value_opt.step()
        world_model.zero_grad(set_to_none=True)

        log["model"].append(model_loss.item())
        log["actor"].append(actor_loss.item())
        log["value"].append(value_loss.item())
    return sum(log["model"]) / len(log["model"])


if __name__ == "__main__":
    print(run(make_batches(5)))
