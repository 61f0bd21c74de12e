import torch.nn as nn


class MLP_FEATURE_EXTRACTOR(nn.Module):
    def __init__(self, obs_dim, hidden=64):
        super(MLP_FEATURE_EXTRACTOR, self).__init__()
        self.layers = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(),
                                    nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, x):
        return self.layers(x)


class DQN_NETWORK(nn.Module):
    """Feature extractor + Q head + auxiliary reward-prediction head."""

    def __init__(self, obs_dim, n_actions, hidden=64):
        super(DQN_NETWORK, self).__init__()
        self.features = MLP_FEATURE_EXTRACTOR(obs_dim, hidden)
        self.head = nn.Linear(hidden, n_actions)
        self.reward_head = nn.Linear(hidden, n_actions)

    def forward(self, x, with_aux=False):
        h = self.features(x)
        if with_aux:
            return self.head(h), self.reward_head(h)
        return self.head(h)


class DUELING_NETWORK(DQN_NETWORK):
    def __init__(self, obs_dim, n_actions, hidden=64):
        super(DUELING_NETWORK, self).__init__(obs_dim, n_actions, hidden)
        self.value = nn.Linear(hidden, 1)

    def forward(self, x, with_aux=False):
        h = self.features(x)
        adv = self.head(h)
        q = self.value(h) + adv - adv.mean(-1, keepdim=True)
        if with_aux:
            return q, self.reward_head(h)
        return q


NETWORKS = {'dqn': DQN_NETWORK, 'dueling': DUELING_NETWORK}
