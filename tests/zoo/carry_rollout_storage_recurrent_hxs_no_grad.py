# Source: https://github.com/ikostrikov/pytorch-a2c-ppo-acktr-gail/issues/284
# Shape: an A2C/PPO rollout acts under torch.no_grad() and writes observations, recurrent hidden states, actions, log-probabilities and values into preallocated storage tensors by slot copy; the next step reads its hidden state back from that storage, so the recurrent state is carried through the rollout without any graph, and the update recomputes log-probabilities with grad.
# Verdict: clean
import torch
import torch.nn as nn


class RolloutStorage:
    def __init__(self, num_steps, num_procs, obs_dim, hidden_size):
        self.obs = torch.zeros(num_steps + 1, num_procs, obs_dim)
        self.recurrent_hidden_states = torch.zeros(num_steps + 1, num_procs, hidden_size)
        self.rewards = torch.zeros(num_steps, num_procs, 1)
        self.value_preds = torch.zeros(num_steps + 1, num_procs, 1)
        self.action_log_probs = torch.zeros(num_steps, num_procs, 1)
        self.actions = torch.zeros(num_steps, num_procs, 1, dtype=torch.long)
        self.masks = torch.ones(num_steps + 1, num_procs, 1)
        self.num_steps = num_steps
        self.step = 0

    def insert(self, obs, hxs, actions, action_log_probs, value_preds, rewards, masks):
        self.obs[self.step + 1].copy_(obs)
        self.recurrent_hidden_states[self.step + 1].copy_(hxs)
        self.actions[self.step].copy_(actions)
        self.action_log_probs[self.step].copy_(action_log_probs)
        self.value_preds[self.step].copy_(value_preds)
        self.rewards[self.step].copy_(rewards)
        self.masks[self.step + 1].copy_(masks)
        self.step = (self.step + 1) % self.num_steps

    def after_update(self):
        self.obs[0].copy_(self.obs[-1])
        self.recurrent_hidden_states[0].copy_(self.recurrent_hidden_states[-1])
        self.masks[0].copy_(self.masks[-1])


def train(envs, actor_critic, agent, rollouts, num_updates, num_steps):
    for update in range(num_updates):
        for step in range(num_steps):
            with torch.no_grad():
                value, action, action_log_prob, hxs = actor_critic.act(
                    rollouts.obs[step], rollouts.recurrent_hidden_states[step], rollouts.masks[step])
            obs, reward, done, infos = envs.step(action)
            masks = torch.tensor([[0.0] if d else [1.0] for d in done])
            rollouts.insert(obs, hxs, action, action_log_prob, value, reward, masks)
        with torch.no_grad():
            next_value = actor_critic.get_value(rollouts.obs[-1], rollouts.recurrent_hidden_states[-1], rollouts.masks[-1])
        value_loss, action_loss, dist_entropy = agent.update(rollouts, next_value)
        rollouts.after_update()
        print(f"update {update}: value {value_loss:.3f} action {action_loss:.3f} entropy {dist_entropy:.3f}")
