"""DQN agent with (prioritized) replay, Polyak-averaged target net and an auxiliary reward head."""
import copy
import random

import torch
import torch.nn.functional as F
import torch.optim as optim

from replay_buffer import ReplayBuffer, PrioritizedReplayBuffer
from utils import LinearSchedule, soft_update, TrainingStats


class DQN(object):
    def __init__(self, network_policy, n_actions, gamma=0.99, lr=5e-4, size_buffer=10000,
                 prioritized_replay=True, size_batch=32, tau=0.01, aux_coef=0.1,
                 exploration_steps=1000, prioritized_replay_eps=1e-6):
        self.network_policy = network_policy
        self.network_target = copy.deepcopy(network_policy)
        for param in self.network_target.parameters():
            param.requires_grad = False
        self.network_target.eval()
        self.optimizer = optim.Adam(self.network_policy.parameters(), lr=lr)
        self.n_actions = n_actions
        self.gamma, self.tau, self.aux_coef = gamma, tau, aux_coef
        self.size_batch = size_batch
        self.prioritized_replay = prioritized_replay
        self.prioritized_replay_eps = prioritized_replay_eps
        if prioritized_replay:
            self.replay_buffer = PrioritizedReplayBuffer(size_buffer)
        else:
            self.replay_buffer = ReplayBuffer(size_buffer)
        self.exploration = LinearSchedule(exploration_steps, final_p=0.05)
        self.stats = TrainingStats()
        self.max_q_trace = []      # average max-Q curve as in Mnih et al.
        self.eval_q_trace = []
        self.t = 0

    def decide(self, obs, eval=False):
        values = self.network_policy(obs.unsqueeze(0))
        self.max_q_trace.append(values.max())  # expect: TLK102
        if not eval and random.random() < self.exploration.value(self.t):
            return random.randrange(self.n_actions)
        return int(values.argmax())

    def step(self, obs_curr, action, reward, obs_next, done):
        self.replay_buffer.add(obs_curr, action, reward, obs_next, done)
        self.stats.add_reward(reward, done)
        loss = None
        if len(self.replay_buffer) >= self.size_batch:
            loss = self.update()
            soft_update(self.network_target, self.network_policy, self.tau)
        self.t += 1
        return loss

    def update(self):
        if self.prioritized_replay:
            obs, act, rew, obs_next, done, weights, idxes = self.replay_buffer.sample(self.size_batch)
        else:
            obs, act, rew, obs_next, done, weights, idxes = self.replay_buffer.sample(self.size_batch)
        q_all, r_pred = self.network_policy(obs, with_aux=True)
        q = q_all.gather(1, act.view(-1, 1)).squeeze(1)
        with torch.no_grad():
            q_next = self.network_target(obs_next).max(1)[0]
            target = rew + self.gamma * (1.0 - done) * q_next
        td = F.smooth_l1_loss(q, target, reduction='none')
        loss = (td * weights).mean()
        aux_loss = F.mse_loss(r_pred.gather(1, act.view(-1, 1)).squeeze(1), rew)

        self.optimizer.zero_grad()
        loss.backward(retain_graph=True)  # CLEAN: aux_loss.backward() below goes through the shared feature graph
        (self.aux_coef * aux_loss).backward()
        torch.nn.utils.clip_grad_norm_(self.network_policy.parameters(), 10.0)
        self.optimizer.step()

        if self.prioritized_replay:
            new_priorities = td.detach().abs() + self.prioritized_replay_eps  # CLEAN: detached before it goes into the buffer
            self.replay_buffer.update_priorities(idxes, new_priorities)
        self.stats.add_loss(loss)
        return loss.item()
