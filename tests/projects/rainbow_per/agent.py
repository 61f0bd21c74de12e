# Modelled on agent.py of Kaixhin/Rainbow: Agent.act() under no_grad, learn(mem) sampling from
# prioritized memory, computing the double-Q target distribution under no_grad and backwarding the
# importance-weighted cross-entropy, then mem.update_priorities(idxs, loss.detach().cpu().numpy()) (here the attached loss: the
# memory takes .item() of each priority),
# and evaluate_q(state) for the Q-value plot of test.py. Here learn() returns the weighted loss for
# the caller's log, and evaluate_q drops the original's no_grad and .item().
import torch
from torch import optim

from losses import distributional_loss, project_distribution
from model import DQN
from utils import backward_and_clip


class Agent(object):
    def __init__(self, args, action_space):
        self.args = args
        self.action_space = action_space
        self.support = torch.linspace(args.V_min, args.V_max, args.atoms)
        self.batch_size = args.batch_size
        self.online_net = DQN(args, action_space)
        self.target_net = DQN(args, action_space)
        self.update_target_net()
        for param in self.target_net.parameters():
            param.requires_grad = False
        self.optimiser = optim.Adam(self.online_net.parameters(), lr=args.learning_rate, eps=args.adam_eps)

    def act(self, state):
        with torch.no_grad():
            return (self.online_net(state.unsqueeze(0)) * self.support).sum(2).argmax(1).item()

    def act_q(self, state):
        with torch.no_grad():
            return (self.online_net(state.unsqueeze(0)) * self.support).sum(2).max(1)[0]

    def learn(self, mem):
        idxs, states, actions, returns, next_states, nonterminals, weights = mem.sample(self.batch_size)
        log_ps = self.online_net(states, log=True)
        log_ps_a = log_ps[range(self.batch_size), actions]
        with torch.no_grad():
            pns = self.online_net(next_states)
            dns = self.support.expand_as(pns) * pns
            argmax_indices_ns = dns.sum(2).argmax(1)
            pns = self.target_net(next_states)
            pns_a = pns[range(self.batch_size), argmax_indices_ns]
        m = project_distribution(pns_a, returns, nonterminals, self.support, self.args)
        loss, weighted = distributional_loss(log_ps_a, m, weights)  # clean: losses.py returns the mean that backward_and_clip backwards
        backward_and_clip(weighted, self.optimiser, self.online_net.parameters(), self.args.norm_clip)
        mem.update_priorities(idxs, loss)  # clean: ReplayMemory.update_priorities in memory.py takes priority.item() of each element
        return weighted

    def update_target_net(self):
        self.target_net.load_state_dict(self.online_net.state_dict())

    def evaluate_q(self, state):
        return (self.online_net(state.unsqueeze(0)) * self.support).sum(2).max(1)[0]

    def train(self):
        self.online_net.train()

    def eval(self):
        self.online_net.eval()
