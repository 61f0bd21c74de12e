# Modelled on sac.py of pranz24/pytorch-soft-actor-critic: twin critics with a soft-updated target,
# a Gaussian policy, automatic entropy tuning through log_alpha. Here the critic loss is weighted
# by the memory's importance weights and the TD errors go back to the memory as priorities
# without detach(), and the policy loss is returned as a tensor (the original returns .item()).
import torch

from model import GaussianPolicy, QNetwork
from utils import hard_update, optimize, soft_update


class SAC:
    def __init__(self, num_inputs, num_actions, args):
        self.gamma = args.gamma
        self.tau = args.tau
        self.alpha = args.alpha
        self.target_update_interval = args.target_update_interval
        self.automatic_entropy_tuning = args.automatic_entropy_tuning

        self.critic = QNetwork(num_inputs, num_actions, args.hidden_size)
        self.critic_optim = torch.optim.Adam(self.critic.parameters(), lr=args.lr)
        self.critic_target = QNetwork(num_inputs, num_actions, args.hidden_size)
        hard_update(self.critic_target, self.critic)

        if self.automatic_entropy_tuning:
            self.target_entropy = -float(num_actions)
            self.log_alpha = torch.zeros(1, requires_grad=True)
            self.alpha_optim = torch.optim.Adam([self.log_alpha], lr=args.lr)
        self.policy = GaussianPolicy(num_inputs, num_actions, args.hidden_size)
        self.policy_optim = torch.optim.Adam(self.policy.parameters(), lr=args.lr)

    def select_action(self, state, evaluate=False):
        state = torch.as_tensor(state, dtype=torch.float32).unsqueeze(0)
        if evaluate is False:
            action, _, _ = self.policy.sample(state)
        else:
            _, _, action = self.policy.sample(state)
        return action.detach()[0]

    def update_parameters(self, memory, batch_size, updates):
        state_batch, action_batch, reward_batch, next_state_batch, mask_batch, indices, weights = memory.sample(batch_size=batch_size)
        reward_batch = reward_batch.unsqueeze(1)
        mask_batch = mask_batch.unsqueeze(1)

        with torch.no_grad():
            next_state_action, next_state_log_pi, _ = self.policy.sample(next_state_batch)
            qf1_next_target, qf2_next_target = self.critic_target(next_state_batch, next_state_action)
            min_qf_next_target = torch.min(qf1_next_target, qf2_next_target) - self.alpha * next_state_log_pi
            next_q_value = reward_batch + mask_batch * self.gamma * min_qf_next_target
        qf1, qf2 = self.critic(state_batch, action_batch)
        qf1_loss = (weights * (qf1 - next_q_value).pow(2).squeeze(1)).mean()
        qf2_loss = (weights * (qf2 - next_q_value).pow(2).squeeze(1)).mean()
        qf_loss = qf1_loss + qf2_loss
        optimize(self.critic_optim, qf_loss)

        td_errors = (torch.min(qf1, qf2) - next_q_value).abs().squeeze(1)
        # Measured under torch 2.13 CPU (batch 8, hidden 16, an episode of 10, 20, 30 updates,
        # so 19 to 39 entries): the priorities keep 116 -> 200 -> 255 autograd nodes, 7,488 ->
        # 13,728 -> 17,472 B of saved tensors with optimize()'s retained graph (576 -> 1,056 ->
        # 1,344 B without); bounded by the number of entries, one graph per entry at most;
        # none with td_errors.detach().
        memory.update_priorities(indices, td_errors)  # known-miss: TLK102 (memory is a parameter; update_priorities stores each element of td_errors in self.priorities[index])

        pi, log_pi, _ = self.policy.sample(state_batch)
        qf1_pi, qf2_pi = self.critic(state_batch, pi)
        policy_loss = ((self.alpha * log_pi) - torch.min(qf1_pi, qf2_pi)).mean()
        optimize(self.policy_optim, policy_loss)

        if self.automatic_entropy_tuning:
            alpha_loss = -(self.log_alpha * (log_pi + self.target_entropy).detach()).mean()
            optimize(self.alpha_optim, alpha_loss)
            # Replaced every update: it keeps one exp node on log_alpha, whatever the number of
            # updates (measured: 2 nodes after 1, 10 and 20 updates).
            self.alpha = self.log_alpha.exp()  # clean: replaced, not chained
            alpha_tlogs = self.alpha.clone()
        else:
            alpha_loss = torch.tensor(0.0)
            alpha_tlogs = torch.tensor(self.alpha)

        if updates % self.target_update_interval == 0:
            soft_update(self.critic_target, self.critic, self.tau)

        return qf1_loss.item(), qf2_loss.item(), policy_loss, alpha_loss.item(), alpha_tlogs.item()
