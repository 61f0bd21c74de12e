# Modelled on memory.py of Kaixhin/PlaNet: ExperienceReplay with append(observation, action,
# reward, done) and sample(n, L) returning n chunks of L consecutive steps (time-major). Written
# on Python lists of tensors instead of preallocated numpy arrays, and with the reward the model
# predicted at collection time kept next to each step, so that chunks can be drawn in
# proportion to the model's reward error.
import torch


class ExperienceReplay():
    def __init__(self, size):
        self.size = size
        self.observations, self.actions, self.rewards, self.nonterminals, self.pred_rewards = [], [], [], [], []
        self.steps, self.episodes = 0, 0

    def append(self, observation, action, reward, done, pred_reward=None):
        self.observations.append(observation)
        self.actions.append(action)
        self.rewards.append(float(reward))
        self.nonterminals.append(0.0 if done else 1.0)
        self.pred_rewards.append(pred_reward if pred_reward is not None else torch.tensor(float(reward)))
        if len(self.observations) > self.size:
            for buf in (self.observations, self.actions, self.rewards, self.nonterminals, self.pred_rewards):
                buf.pop(0)
        self.steps, self.episodes = self.steps + 1, self.episodes + (1 if done else 0)

    def sample(self, n, L):
        errors = torch.stack([torch.as_tensor(p).reshape(()) for p in self.pred_rewards[:len(self.rewards) - L]]) - torch.tensor(self.rewards[:len(self.rewards) - L])
        starts = torch.multinomial(errors.abs() + 1e-3, n, replacement=True).tolist()
        obs = torch.stack([torch.stack(self.observations[s:s + L]) for s in starts], dim=1)
        actions = torch.stack([torch.stack(self.actions[s:s + L]) for s in starts], dim=1)
        rewards = torch.tensor([self.rewards[s:s + L] for s in starts]).t()
        nonterminals = torch.tensor([self.nonterminals[s:s + L] for s in starts]).t().unsqueeze(-1)
        return obs, actions, rewards, nonterminals
