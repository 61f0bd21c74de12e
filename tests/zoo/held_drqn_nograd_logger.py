# Source: https://github.com/chandar-lab/RLHive/blob/master/hive/agents/drqn.py
# Shape: the agent carries its LSTM hidden state from env step to env step, but act() runs under @torch.no_grad() so the carried state has no graph, and the loss tensor handed to the logger is turned into a float (.item()) inside ChompLogger before it is stored.
# Verdict: clean
import random

import torch
import torch.nn as nn

OBS_DIM, N_ACTIONS, HIDDEN = 16, 4, 64
SEQ_LEN, BATCH = 8, 16


class Chomp(dict):
    """Nested dict used by ChompLogger to keep every logged value."""


class ChompLogger:
    def __init__(self):
        self._log_data = Chomp()
        self.step = 0

    def log_scalar(self, name, value, prefix):
        metric_name = f"{prefix}/{name}"
        if self.step not in self._log_data:
            self._log_data[self.step] = {}
        if isinstance(value, torch.Tensor):
            self._log_data[self.step][metric_name] = value.item()
        else:
            self._log_data[self.step][metric_name] = value


class DRQNNetwork(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(OBS_DIM, HIDDEN), nn.ReLU())
        self.rnn = nn.LSTM(HIDDEN, HIDDEN, batch_first=True)
        self.head = nn.Linear(HIDDEN, N_ACTIONS)

    def init_hidden(self, batch_size):
        return (torch.zeros(1, batch_size, HIDDEN), torch.zeros(1, batch_size, HIDDEN))

    def forward(self, obs, hidden_state):
        if obs.dim() == 2:
            obs = obs.unsqueeze(1)
        out, hidden_state = self.rnn(self.encoder(obs), hidden_state)
        return self.head(out), hidden_state


class RecurrentReplayBuffer:
    def __init__(self, capacity=512):
        self.capacity = capacity
        self.storage = []

    def add(self, observation, action, reward, done):
        self.storage.append((observation, action, reward, done))
        if len(self.storage) > self.capacity:
            self.storage.pop(0)

    def size(self):
        return len(self.storage)

    def sample(self, batch_size):
        starts = [random.randrange(0, len(self.storage) - SEQ_LEN - 1) for _ in range(batch_size)]
        seqs = [self.storage[s:s + SEQ_LEN + 1] for s in starts]
        obs = torch.stack([torch.stack([t[0] for t in seq]) for seq in seqs])
        act = torch.tensor([[t[1] for t in seq[:-1]] for seq in seqs])
        rew = torch.tensor([[t[2] for t in seq[:-1]] for seq in seqs])
        done = torch.tensor([[float(t[3]) for t in seq[:-1]] for seq in seqs])
        return obs, act, rew, done


class DRQNAgent:
    def __init__(self, logger, gamma=0.99, epsilon=0.1, min_replay_history=64):
        self._qnet = DRQNNetwork()
        self._target_qnet = DRQNNetwork()
        self._target_qnet.load_state_dict(self._qnet.state_dict())
        self._target_qnet.requires_grad_(False)
        self._optimizer = torch.optim.Adam(self._qnet.parameters(), lr=1e-3)
        self._replay_buffer = RecurrentReplayBuffer()
        self._hidden_state = self._qnet.init_hidden(1)
        self._logger = logger
        self._gamma, self._epsilon = gamma, epsilon
        self._min_replay_history = min_replay_history

    @torch.no_grad()
    def act(self, observation):
        qvals, self._hidden_state = self._qnet(observation.unsqueeze(0), self._hidden_state)
        if random.random() < self._epsilon:
            action = random.randrange(N_ACTIONS)
        else:
            action = torch.argmax(qvals).item()
        self._logger.log_scalar("train_qval", torch.max(qvals), "agent")
        return action

    def update(self, observation, action, reward, done):
        if done:
            self._hidden_state = self._qnet.init_hidden(1)
        self._replay_buffer.add(observation, action, reward, done)
        if self._replay_buffer.size() < self._min_replay_history:
            return
        obs, act, rew, dn = self._replay_buffer.sample(BATCH)
        hidden = self._qnet.init_hidden(BATCH)
        q, _ = self._qnet(obs[:, :-1], hidden)
        pred = q.gather(-1, act.unsqueeze(-1)).squeeze(-1)
        with torch.no_grad():
            next_q, _ = self._target_qnet(obs[:, 1:], self._target_qnet.init_hidden(BATCH))
            target = rew + self._gamma * next_q.max(-1).values * (1 - dn)
        loss = nn.functional.smooth_l1_loss(pred, target)
        self._logger.log_scalar("train_loss", loss, "agent")
        self._optimizer.zero_grad()
        loss.backward()
        self._optimizer.step()


class ToyEnv:
    """Partially observable corridor: the goal side is only shown on the first step."""

    def __init__(self, seed=0):
        self.rng = random.Random(seed)
        self.t = 0

    def reset(self):
        self.goal = self.rng.randrange(N_ACTIONS)
        self.t = 0
        return self._obs(show_goal=True)

    def _obs(self, show_goal):
        o = torch.randn(OBS_DIM) * 0.1
        if show_goal:
            o[self.goal] += 1.0
        return o

    def step(self, action):
        self.t += 1
        reward = 1.0 if (self.t == 6 and action == self.goal) else 0.0
        done = self.t >= 6
        return self._obs(show_goal=False), reward, done


def make_batches(n):
    """Warm-up transitions for the replay buffer (a list of random env steps)."""
    env = ToyEnv(seed=1)
    obs, out = env.reset(), []
    for _ in range(n):
        a = random.randrange(N_ACTIONS)
        nxt, r, d = env.step(a)
        out.append((obs, a, r, d))
        obs = env.reset() if d else nxt
    return out


def run(steps):
    random.seed(0)
    torch.manual_seed(0)
    logger = ChompLogger()
    agent = DRQNAgent(logger)
    for tr in make_batches(80):
        agent._replay_buffer.add(*tr)
    env = ToyEnv(seed=2)
    obs = env.reset()
    for t in range(steps):
        logger.step = t
        action = agent.act(obs)
        next_obs, reward, done = env.step(action)
        agent.update(obs, action, reward, done)
        obs = env.reset() if done else next_obs
    return agent, logger


if __name__ == "__main__":
    agent, logger = run(20)
    print(list(logger._log_data.items())[-1])
