import torch
from torch import distributions as torchd
from torch import nn

import tools


class Random(nn.Module):
    def __init__(self, config, act_space):
        super(Random, self).__init__()
        self._config = config
        self._act_space = act_space

    def actor(self, feat):
        low = torch.tensor(self._act_space.low).repeat(self._config.envs, 1)
        high = torch.tensor(self._act_space.high).repeat(self._config.envs, 1)
        return torchd.independent.Independent(torchd.uniform.Uniform(low, high), 1)

    def train(self, start, context, data):
        return None, {}
