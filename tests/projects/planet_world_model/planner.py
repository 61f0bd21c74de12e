# Modelled on planner.py of Kaixhin/PlaNet: MPCPlanner, the cross-entropy method over action
# sequences evaluated with the learned transition and reward models (not TorchScript here).
import torch
from torch import nn


class MPCPlanner(nn.Module):
    def __init__(self, action_size, planning_horizon, optimisation_iters, candidates, top_candidates, transition_model, reward_model, min_action=-1.0, max_action=1.0):
        super().__init__()
        self.transition_model, self.reward_model = transition_model, reward_model
        self.action_size, self.min_action, self.max_action = action_size, min_action, max_action
        self.planning_horizon = planning_horizon
        self.optimisation_iters = optimisation_iters
        self.candidates, self.top_candidates = candidates, top_candidates

    def forward(self, belief, state):
        B, H, Z = belief.size(0), belief.size(1), state.size(1)
        belief = belief.unsqueeze(dim=1).expand(B, self.candidates, H).reshape(-1, H)
        state = state.unsqueeze(dim=1).expand(B, self.candidates, Z).reshape(-1, Z)
        action_mean = torch.zeros(self.planning_horizon, B, 1, self.action_size)
        action_std_dev = torch.ones(self.planning_horizon, B, 1, self.action_size)
        for _ in range(self.optimisation_iters):
            actions = (action_mean + action_std_dev * torch.randn(self.planning_horizon, B, self.candidates, self.action_size)).view(self.planning_horizon, B * self.candidates, self.action_size)
            actions = actions.clamp(min=self.min_action, max=self.max_action)
            returns, b, s = 0, belief, state
            for t in range(self.planning_horizon):
                b, s, _, _ = self.transition_model.observe_step(s, actions[t], b)  # clean: the planner runs only under the trainer's torch.no_grad()  # known-false: TLK103
                returns = returns + self.reward_model(b, s)  # clean: sum over the horizon, reset every CEM iteration; forward runs under no_grad  # known-false: TLK101
            _, topk = returns.reshape(B, self.candidates).topk(self.top_candidates, dim=1, largest=True, sorted=False)
            topk = topk + self.candidates * torch.arange(0, B, dtype=torch.int64).unsqueeze(dim=1)
            best_actions = actions[:, topk.view(-1)].reshape(self.planning_horizon, B, self.top_candidates, self.action_size)
            action_mean, action_std_dev = best_actions.mean(dim=2, keepdim=True), best_actions.std(dim=2, unbiased=False, keepdim=True)
        return action_mean[0].squeeze(dim=1)
