# Source: https://github.com/oxwhirl/pymarl/issues/161
# Shape: a QMIX learner unrolls the agents' GRU over every time step of a sampled episode batch, the controller carrying the hidden state on itself from step to step without detaching it; the per-step Q-values are stacked and the TD loss is backwarded once per batch, and the hidden state is re-initialised at the start of every batch, so the chain never outlives one update.
# Verdict: clean
import torch
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


class BasicMAC:
    def __init__(self, agent, n_agents):
        self.agent = agent
        self.n_agents = n_agents
        self.hidden_states = None

    def init_hidden(self, batch_size):
        self.hidden_states = self.agent.init_hidden().unsqueeze(0).expand(batch_size, self.n_agents, -1)

    def forward(self, batch, t):
        bs = batch["obs"].shape[0]
        agent_inputs = batch["obs"][:, t].reshape(bs * self.n_agents, -1)
        agent_outs, self.hidden_states = self.agent(agent_inputs, self.hidden_states)
        return agent_outs.view(bs, self.n_agents, -1)

    def parameters(self):
        return self.agent.parameters()


class QLearner:
    def __init__(self, mac, target_mac, mixer, target_mixer, lr=5e-4, gamma=0.99):
        self.mac, self.target_mac = mac, target_mac
        self.mixer, self.target_mixer = mixer, target_mixer
        self.gamma = gamma
        self.params = list(mac.parameters()) + list(mixer.parameters())
        self.optimiser = torch.optim.RMSprop(self.params, lr=lr)

    def train(self, batch, max_seq_length):
        rewards = batch["reward"][:, :-1]
        actions = batch["actions"][:, :-1]
        terminated = batch["terminated"][:, :-1].float()
        mask = batch["filled"][:, :-1].float()
        mac_out = []
        self.mac.init_hidden(batch["obs"].shape[0])
        for t in range(max_seq_length):
            mac_out.append(self.mac.forward(batch, t=t))
        mac_out = torch.stack(mac_out, dim=1)
        chosen_q = torch.gather(mac_out[:, :-1], dim=3, index=actions).squeeze(3)
        with torch.no_grad():
            target_out = []
            self.target_mac.init_hidden(batch["obs"].shape[0])
            for t in range(max_seq_length):
                target_out.append(self.target_mac.forward(batch, t=t))
            target_max_q = torch.stack(target_out[1:], dim=1).max(dim=3)[0]
            target_tot = self.target_mixer(target_max_q, batch["state"][:, 1:])
        chosen_tot = self.mixer(chosen_q, batch["state"][:, :-1])
        targets = rewards + self.gamma * (1 - terminated) * target_tot
        td_error = (chosen_tot - targets) * mask
        loss = (td_error ** 2).sum() / mask.sum()
        self.optimiser.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(self.params, 10)
        self.optimiser.step()
        return loss.item()


def run(learner, buffer, batch_size=32, t_max=2_000_000):
    t_env = 0
    while t_env < t_max:
        batch = buffer.sample(batch_size)
        learner.train(batch, batch.max_t_filled())
        t_env += batch_size * batch.max_seq_length
