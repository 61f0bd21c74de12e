"""QMIX: per-agent utilities mixed monotonically into a joint value, trained by TD on sampled episodes."""
import copy

import torch as th
import torch.nn as nn
import torch.nn.functional as F

from utils import optimise


class QMixer(nn.Module):
    def __init__(self, n_agents, state_dim, embed_dim=8):
        super().__init__()
        self.n_agents, self.embed_dim = n_agents, embed_dim
        self.hyper_w_1 = nn.Linear(state_dim, embed_dim * n_agents)
        self.hyper_w_final = nn.Linear(state_dim, embed_dim)
        self.hyper_b_1 = nn.Linear(state_dim, embed_dim)
        self.V = nn.Sequential(nn.Linear(state_dim, embed_dim), nn.ReLU(), nn.Linear(embed_dim, 1))

    def forward(self, agent_qs, states):
        bs = agent_qs.size(0)
        states = states.reshape(-1, states.size(-1))
        agent_qs = agent_qs.reshape(-1, 1, self.n_agents)
        w1 = th.abs(self.hyper_w_1(states)).view(-1, self.n_agents, self.embed_dim)
        b1 = self.hyper_b_1(states).view(-1, 1, self.embed_dim)
        hidden = F.elu(th.bmm(agent_qs, w1) + b1)
        w_final = th.abs(self.hyper_w_final(states)).view(-1, self.embed_dim, 1)
        y = th.bmm(hidden, w_final) + self.V(states).view(-1, 1, 1)
        return y.view(bs, -1, 1)


class QLearner:
    def __init__(self, mac, state_dim, logger, lr=5e-4, gamma=0.99, grad_norm_clip=10.0, target_update_interval=20):
        self.mac = mac
        self.logger = logger
        self.gamma = gamma
        self.grad_norm_clip = grad_norm_clip
        self.target_update_interval = target_update_interval
        self.mixer = QMixer(mac.n_agents, state_dim)
        self.params = list(mac.parameters()) + list(self.mixer.parameters())
        self.optimiser = th.optim.RMSprop(self.params, lr=lr)
        self.target_mac = copy.deepcopy(mac)
        self.target_mixer = copy.deepcopy(self.mixer)
        self.last_target_update_episode = 0

    def train(self, batch, t_env, episode_num):
        rewards = batch["reward"][:, :-1]
        actions = batch["actions"][:, :-1]
        terminated = batch["terminated"][:, :-1].float()
        mask = batch["filled"][:, :-1].float()
        mask[:, 1:] = mask[:, 1:] * (1 - terminated[:, :-1])
        avail_actions = batch["avail_actions"]

        mac_out = []
        self.mac.init_hidden(batch.batch_size)
        for t in range(batch.max_seq_length):
            mac_out.append(self.mac.forward(batch, t=t))
        mac_out = th.stack(mac_out, dim=1)
        chosen_action_qvals = th.gather(mac_out[:, :-1], dim=3, index=actions.unsqueeze(-1)).squeeze(3)

        with th.no_grad():
            target_mac_out = []
            self.target_mac.init_hidden(batch.batch_size)
            for t in range(batch.max_seq_length):
                target_mac_out.append(self.target_mac.forward(batch, t=t))
            target_mac_out = th.stack(target_mac_out[1:], dim=1)
            target_mac_out[avail_actions[:, 1:] == 0] = -9999999
            target_max_qvals = target_mac_out.max(dim=3)[0]
            target_max_qvals = self.target_mixer(target_max_qvals, batch["state"][:, 1:])

        chosen_action_qvals = self.mixer(chosen_action_qvals, batch["state"][:, :-1])
        targets = rewards + self.gamma * (1 - terminated) * target_max_qvals
        td_error = chosen_action_qvals - targets
        masked_td_error = td_error * mask
        mask_elems = mask.sum()
        loss = (masked_td_error ** 2).sum() / mask_elems

        grad_norm = optimise(self.optimiser, loss, self.params, self.grad_norm_clip)

        if (episode_num - self.last_target_update_episode) / self.target_update_interval >= 1.0:
            self.target_mac.load_state(self.mac)
            self.target_mixer.load_state_dict(self.mixer.state_dict())
            self.last_target_update_episode = episode_num

        self.logger.log_stat("loss", loss.item(), t_env)
        self.logger.log_stat("grad_norm", float(grad_norm), t_env)
        self.logger.log_stat("td_error_abs", masked_td_error.abs().sum() / mask_elems, t_env)  # expect: TLK102 (utils.py) Logger.log_stat appends (t, value) to self.stats[key], a defaultdict(list) that lives for the whole run; this value is an attached tensor, unlike the loss.item() two lines above
