"""On-policy rollout storage."""
import torch


class RolloutBuffer:
    def __init__(self):
        self.states = []
        self.actions = []
        self.logprobs = []
        self.values = []
        self.rewards = []
        self.is_terminals = []

    def add(self, state, action, logprob, value, reward, done):
        self.states.append(state)
        self.actions.append(action)
        self.logprobs.append(logprob)  # CLEAN: produced under torch.no_grad() in Agent.select_action, cleared every update
        self.values.append(value)
        self.rewards.append(reward)
        self.is_terminals.append(done)

    def clear(self):
        del self.states[:]
        del self.actions[:]
        del self.logprobs[:]
        del self.values[:]
        del self.rewards[:]
        del self.is_terminals[:]

    def __len__(self):
        return len(self.rewards)

    def discounted_returns(self, gamma):
        returns = []
        running = 0.0
        for reward, done in zip(reversed(self.rewards), reversed(self.is_terminals)):
            if done:
                running = 0.0
            running = reward + gamma * running
            returns.insert(0, running)
        returns = torch.tensor(returns, dtype=torch.float32)
        return (returns - returns.mean()) / (returns.std() + 1e-7)
