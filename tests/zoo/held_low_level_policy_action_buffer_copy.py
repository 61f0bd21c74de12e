# Source: https://github.com/isaac-sim/IsaacLab/pull/5923
# Shape: a hierarchical-control action term runs a pre-trained low-level policy network on every environment step (outside inference mode) and copies its output into a persistent action buffer by slice assignment; the output is attached, so each copy links the buffer to that step's graph and the buffer's history chains every step of the run.
# Verdict: leak
import torch
import torch.nn as nn


class PreTrainedPolicyAction:
    def __init__(self, policy_path, num_envs, command_dim, low_level_dim, decimation=4, device="cuda"):
        self.policy: nn.Module = torch.jit.load(policy_path, map_location=device).eval()
        self.decimation = decimation
        self.device = device
        self._raw_actions = torch.zeros(num_envs, command_dim, device=device)
        self.low_level_actions = torch.zeros(num_envs, low_level_dim, device=device)
        self._counter = 0

    def process_actions(self, actions: torch.Tensor):
        self._raw_actions[:] = actions

    def apply_actions(self, robot, low_level_obs: torch.Tensor):
        if self._counter % self.decimation == 0:
            policy_input = torch.cat([low_level_obs, self._raw_actions], dim=-1)
            low_level_actions = self.policy(policy_input)
            self.low_level_actions[:] = low_level_actions  # TLK102
        robot.set_joint_position_target(self.low_level_actions)
        self._counter += 1


def run_high_level_training(env, action_term: PreTrainedPolicyAction, high_level_policy, optimizer, num_steps):
    obs = env.reset()
    for step in range(num_steps):
        commands = high_level_policy(obs["policy"])
        action_term.process_actions(commands.detach())
        for _ in range(action_term.decimation):
            action_term.apply_actions(env.robot, obs["low_level"])
            env.sim_step()
        obs, reward, done = env.observe()
        loss = -(reward.detach() * commands.sum(-1)).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
