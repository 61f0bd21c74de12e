"""PPO agent: action selection and the clipped-surrogate update."""
import torch
import torch.nn as nn

from buffer import RolloutBuffer
from networks import ActorCritic


def ppo_loss(ratios, advantages, values, targets, entropy, eps_clip, ent_coef, vf_coef=0.5):
    surr1 = ratios * advantages
    surr2 = torch.clamp(ratios, 1 - eps_clip, 1 + eps_clip) * advantages
    value_loss = nn.functional.mse_loss(values, targets)
    return -torch.min(surr1, surr2).mean() + vf_coef * value_loss - ent_coef * entropy.mean()


class PPOAgent:
    def __init__(self, state_dim, action_dim, lr_actor=3e-4, lr_critic=1e-3,
                 gamma=0.99, k_epochs=3, eps_clip=0.2, hidden=32):
        self.gamma = gamma
        self.k_epochs = k_epochs
        self.eps_clip = eps_clip
        self.buffer = RolloutBuffer()
        self.policy = ActorCritic(state_dim, action_dim, hidden)
        self.optimizer = torch.optim.Adam([
            {"params": self.policy.actor.parameters(), "lr": lr_actor},
            {"params": self.policy.critic.parameters(), "lr": lr_critic},
        ])
        # learnable entropy bonus; the loss uses a smoothed copy so it does not jump around
        self.log_ent_coef = torch.full((), -4.0, requires_grad=True)
        self.coef_optimizer = torch.optim.Adam([self.log_ent_coef], lr=1e-3)
        self.ent_coef_avg = self.log_ent_coef.detach().exp()

    def select_action(self, state):
        with torch.no_grad():
            action, logprob, value = self.policy.act(state)
        return action, logprob, value

    def update(self):
        targets = self.buffer.discounted_returns(self.gamma)
        old_states = torch.stack(self.buffer.states)
        old_actions = torch.stack(self.buffer.actions)
        old_logprobs = torch.stack(self.buffer.logprobs).detach()  # CLEAN: detached (and no_grad) before use
        old_values = torch.stack(self.buffer.values)

        for _ in range(self.k_epochs):
            logprobs, values, entropy = self.policy.evaluate(old_states, old_actions)
            advantages = targets - old_values
            ratios = torch.exp(logprobs - old_logprobs)
            ent_coef = self.log_ent_coef.exp()
            self.ent_coef_avg = 0.9 * self.ent_coef_avg + 0.1 * ent_coef
            loss = ppo_loss(ratios, advantages, values, targets, entropy, self.eps_clip, self.ent_coef_avg)  # CLEAN: sum of terms, backwarded just below
            self.optimizer.zero_grad()
            self.coef_optimizer.zero_grad()
            loss.backward(retain_graph=True)  # expect: TLK202
            self.optimizer.step()
            self.coef_optimizer.step()

        self.buffer.clear()
        return {"loss": loss, "entropy": entropy.mean(), "values": values, "targets": targets}
