"""Runs one episode at a time in the environment, with the controller choosing every agent's action."""
import random

import torch as th

from buffer import EpisodeBatch


class CoopEnv:
    """A small cooperative task standing in for a StarCraft micromanagement map."""

    def __init__(self, n_agents=2, n_actions=3, obs_dim=6, state_dim=8, episode_limit=5, seed=0):
        self.n_agents, self.n_actions = n_agents, n_actions
        self.obs_dim, self.state_dim = obs_dim, state_dim
        self.episode_limit = episode_limit
        self.rng = random.Random(seed)
        self.steps = 0

    def reset(self):
        self.steps = 0

    def get_obs(self):
        return [[self.rng.random() for _ in range(self.obs_dim)] for _ in range(self.n_agents)]

    def get_state(self):
        return [self.rng.random() for _ in range(self.state_dim)]

    def get_avail_actions(self):
        return [[1] * self.n_actions for _ in range(self.n_agents)]

    def step(self, actions):
        self.steps += 1
        reward = float(sum(actions.tolist()) % self.n_actions == 0)
        return reward, self.steps >= self.episode_limit, {"episode_limit": self.steps >= self.episode_limit}


class EpisodeRunner:
    def __init__(self, env, mac, logger, scheme):
        self.env, self.mac, self.logger, self.scheme = env, mac, logger, scheme
        self.batch_size = 1
        self.episode_limit = env.episode_limit
        self.t = 0
        self.t_env = 0
        self.train_returns = []

    def new_batch(self):
        return EpisodeBatch(self.scheme, self.batch_size, self.episode_limit + 1)

    def run(self, test_mode=False):
        self.batch = self.new_batch()
        self.env.reset()
        self.t = 0
        terminated = False
        episode_return = 0
        self.mac.init_hidden(batch_size=self.batch_size)

        while not terminated:
            self.batch.update({
                "state": [self.env.get_state()],
                "avail_actions": [self.env.get_avail_actions()],
                "obs": [self.env.get_obs()],
                "filled": [[1]],
            }, ts=self.t)
            actions = self.mac.select_actions(self.batch, t_ep=self.t, t_env=self.t_env, test_mode=test_mode)  # expect: TLK101, TLK103 (controller.py) BasicMAC.select_actions in controller.py hands the agents' outputs to self.action_selector.select_action, and EpsilonGreedyActionSelector.select_action adds greedy.values.mean() to self.q_sum, which is read only at log time) TLK103, not marked by its author: BasicMAC.forward carries self.hidden_states over the episode without no_grad; measured 225 graph nodes behind it after a 10-step episode, 625 after 30
            reward, terminated, env_info = self.env.step(actions[0])
            episode_return += reward
            self.batch.update({
                "actions": actions,
                "reward": [[reward]],
                "terminated": [[terminated != env_info.get("episode_limit", False)]],
            }, ts=self.t)
            self.t += 1

        self.batch.update({
            "state": [self.env.get_state()],
            "avail_actions": [self.env.get_avail_actions()],
            "obs": [self.env.get_obs()],
        }, ts=self.t)
        actions = self.mac.select_actions(self.batch, t_ep=self.t, t_env=self.t_env, test_mode=test_mode)
        self.batch.update({"actions": actions}, ts=self.t)

        if not test_mode:
            self.t_env += self.t
            self.train_returns.append(episode_return)
        return self.batch

    def log_stats(self):
        self.logger.log_stat("return_mean", sum(self.train_returns) / max(len(self.train_returns), 1), self.t_env)
        self.logger.log_stat("q_max_mean", self.mac.action_selector.mean_q(), self.t_env)
        self.train_returns = []
