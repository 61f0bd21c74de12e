"""Agents share one recurrent network; the controller runs it for every agent and picks actions."""
import torch as th
import torch.nn as nn
import torch.nn.functional as F


class RNNAgent(nn.Module):
    def __init__(self, input_shape, hidden_dim, n_actions):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.fc1 = nn.Linear(input_shape, hidden_dim)
        self.rnn = nn.GRUCell(hidden_dim, hidden_dim)
        self.fc2 = nn.Linear(hidden_dim, n_actions)

    def init_hidden(self):
        return self.fc1.weight.new_zeros(1, self.hidden_dim)

    def forward(self, inputs, hidden_state):
        x = F.relu(self.fc1(inputs))
        h = self.rnn(x, hidden_state.reshape(-1, self.hidden_dim))
        return self.fc2(h), h


class EpsilonGreedyActionSelector:
    def __init__(self, epsilon_start=1.0, epsilon_finish=0.05, anneal_steps=500):
        self.start, self.finish, self.anneal_steps = epsilon_start, epsilon_finish, anneal_steps
        self.epsilon = epsilon_start
        # Mean greedy value of the chosen actions since the last log, for the runner's stats.
        self.q_sum = 0.0
        self.n_selected = 0

    def select_action(self, agent_inputs, avail_actions, t_env, test_mode=False):
        fraction = min(t_env / self.anneal_steps, 1.0)
        self.epsilon = 0.0 if test_mode else self.start + fraction * (self.finish - self.start)
        masked_q_values = agent_inputs.clone()
        masked_q_values[avail_actions == 0] = -float("inf")
        greedy = masked_q_values.max(dim=2)
        self.q_sum += greedy.values.mean()
        self.n_selected += 1
        random_numbers = th.rand_like(agent_inputs[:, :, 0])
        pick_random = (random_numbers < self.epsilon).long()
        random_actions = th.multinomial(avail_actions.float().reshape(-1, avail_actions.size(-1)), 1).reshape(pick_random.shape)
        return pick_random * random_actions + (1 - pick_random) * greedy.indices

    def mean_q(self):
        value = float(self.q_sum) / max(self.n_selected, 1)
        self.q_sum, self.n_selected = 0.0, 0
        return value


class BasicMAC:
    """Multi-agent controller: parameters shared between agents, one hidden state per agent."""

    def __init__(self, obs_shape, n_agents, n_actions, hidden_dim=16):
        self.n_agents = n_agents
        self.agent = RNNAgent(obs_shape + n_agents, hidden_dim, n_actions)
        self.action_selector = EpsilonGreedyActionSelector()
        self.hidden_states = None

    def select_actions(self, ep_batch, t_ep, t_env, test_mode=False):
        avail_actions = ep_batch["avail_actions"][:, t_ep]
        agent_outputs = self.forward(ep_batch, t_ep)
        return self.action_selector.select_action(agent_outputs, avail_actions, t_env, test_mode=test_mode)

    def forward(self, ep_batch, t):
        inputs = self._build_inputs(ep_batch, t)
        agent_outs, self.hidden_states = self.agent(inputs, self.hidden_states)
        return agent_outs.view(ep_batch.batch_size, self.n_agents, -1)

    def init_hidden(self, batch_size):
        self.hidden_states = self.agent.init_hidden().unsqueeze(0).expand(batch_size, self.n_agents, -1)

    def _build_inputs(self, batch, t):
        obs = batch["obs"][:, t]
        agent_ids = th.eye(self.n_agents).unsqueeze(0).expand(batch.batch_size, -1, -1)
        return th.cat([obs, agent_ids], dim=-1).reshape(batch.batch_size * self.n_agents, -1)

    def parameters(self):
        return self.agent.parameters()

    def load_state(self, other_mac):
        self.agent.load_state_dict(other_mac.agent.state_dict())
