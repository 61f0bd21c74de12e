# Source: https://github.com/seungeunrho/minimalRL/blob/53023b7f3d7683fc2d1ef5b3dbfbf672d9b3c7ff/ppo-lstm.py
# Shape: an LSTM policy's rollout runs without no_grad and feeds its hidden state back through an alias (h_in = h_out, then h_out comes out of the policy given h_in); the state is reset only when an episode starts, so every step's graph is chained to the previous one for the whole episode
# Verdict: leak
import torch
import torch.nn.functional as F
from torch import nn


class RecurrentPolicy(nn.Module):
    def __init__(self, observation_size=4, hidden_size=16, actions=2):
        super().__init__()
        self.encoder = nn.Linear(observation_size, hidden_size)
        self.lstm = nn.LSTM(hidden_size, hidden_size)
        self.logits = nn.Linear(hidden_size, actions)

    def act(self, observation, hidden):
        features = F.relu(self.encoder(observation)).view(1, 1, -1)
        out, hidden = self.lstm(features, hidden)
        return F.softmax(self.logits(out), dim=2), hidden


policy = RecurrentPolicy()
trajectory = []
for episode in range(3):
    h_out = (torch.zeros(1, 1, 16), torch.zeros(1, 1, 16))
    for step in range(200):
        h_in = h_out
        probabilities, h_out = policy.act(torch.randn(4), h_in)  # TLK103
        action = torch.distributions.Categorical(probabilities.view(-1)).sample().item()
        trajectory.append((action, tuple(h.detach() for h in h_in)))
