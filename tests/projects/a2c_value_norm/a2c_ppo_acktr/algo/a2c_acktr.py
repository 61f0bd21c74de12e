# Modelled on ikostrikov/pytorch-a2c-ppo-acktr-gail (a2c_ppo_acktr/algo/a2c_acktr.py): the update
# re-evaluates the stored rollout with grad, then steps; here with a return normaliser and the
# sampled-Fisher backward of ACKTR (retain_graph=True followed by the real backward).
import torch
import torch.nn as nn
import torch.optim as optim

from ..utils import RunningMeanStd


class A2C_ACKTR:
    def __init__(self, actor_critic, value_loss_coef, entropy_coef, lr=7e-4, max_grad_norm=0.5, fisher=False):
        self.actor_critic = actor_critic
        self.value_loss_coef = value_loss_coef
        self.entropy_coef = entropy_coef
        self.max_grad_norm = max_grad_norm
        self.fisher = fisher
        self.optimizer = optim.RMSprop(actor_critic.parameters(), lr, eps=1e-5, alpha=0.99)
        self.value_rms = RunningMeanStd(shape=(1,))
        self.grad_norms = []

    def update(self, rollouts):
        num_steps, num_processes, _ = rollouts.rewards.size()
        obs_dim = rollouts.obs.size(-1)
        values, action_log_probs, dist_entropy = self.actor_critic.evaluate_actions(
            rollouts.obs[:-1].view(-1, obs_dim), rollouts.actions.view(-1, 1))
        # Leaks: RunningMeanStd.update (utils.py) chains self.mean and self.var onto the graph of
        # every batch of values it is given with grad. Reported where main.py calls update() in
        # its loop (measured there).
        self.value_rms.update(values)
        values = values.view(num_steps, num_processes, 1)
        action_log_probs = action_log_probs.view(num_steps, num_processes, 1)

        advantages = rollouts.returns[:-1] - values
        value_loss = advantages.pow(2).mean()
        action_loss = -(advantages.detach() * action_log_probs).mean()

        if self.fisher:
            self.actor_critic.zero_grad()
            fisher_loss = -action_log_probs.mean() - (values - (values + torch.randn(values.size())).detach()).pow(2).mean()
            fisher_loss.backward(retain_graph=True)  # clean: the real backward below reuses the graph

        self.optimizer.zero_grad()
        (value_loss * self.value_loss_coef + action_loss - dist_entropy * self.entropy_coef).backward()
        grad_norm = nn.utils.clip_grad_norm_(self.actor_critic.parameters(), self.max_grad_norm)
        self.grad_norms.append(grad_norm)  # clean: clip_grad_norm_ returns a tensor without graph
        self.optimizer.step()
        return value_loss.item(), action_loss.item(), dist_entropy.item()
