# Modelled on model.py of Kaixhin/Rainbow: a distributional dueling DQN whose forward returns,
# per action, a softmax (or log-softmax with log=True) over the atoms of the value support.
# Reduced: plain linear layers stand in for the convolutional trunk and the NoisyLinear layers.
import torch
import torch.nn as nn
import torch.nn.functional as F


class DQN(nn.Module):
    def __init__(self, args, action_space):
        super().__init__()
        self.atoms = args.atoms
        self.action_space = action_space
        self.fc = nn.Linear(args.state_dim, args.hidden_size)
        self.fc_h_v = nn.Linear(args.hidden_size, args.hidden_size)
        self.fc_h_a = nn.Linear(args.hidden_size, args.hidden_size)
        self.fc_z_v = nn.Linear(args.hidden_size, self.atoms)
        self.fc_z_a = nn.Linear(args.hidden_size, action_space * self.atoms)

    def forward(self, x, log=False):
        x = F.relu(self.fc(x))
        v = self.fc_z_v(F.relu(self.fc_h_v(x)))
        a = self.fc_z_a(F.relu(self.fc_h_a(x)))
        v, a = v.view(-1, 1, self.atoms), a.view(-1, self.action_space, self.atoms)
        q = v + a - a.mean(1, keepdim=True)
        if log:
            return F.log_softmax(q, dim=2)
        return F.softmax(q, dim=2)
