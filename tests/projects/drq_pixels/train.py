# Modelled on: https://github.com/denisyarats/drq/blob/master/train.py
import copy
import math
import os
import sys
import time
from collections import defaultdict
from types import SimpleNamespace

import numpy as np

import torch
import torch.nn as nn
import torch.nn.functional as F
import utils
from envs import make_env
from drq import DRQAgent
from logger import Logger
from replay_buffer import ReplayBuffer

torch.backends.cudnn.benchmark = True


def default_config(**overrides):
    cfg = dict(
        env='point_mass_easy',
        action_repeat=4,
        max_episode_steps=250,
        num_train_steps=100,
        num_train_iters=1,
        num_seed_steps=48,
        replay_buffer_capacity=1000,
        seed=1,
        eval_frequency=10 ** 9,
        num_eval_episodes=1,
        log_frequency_step=1,
        device='cpu',
        image_size=32,
        image_pad=4,
        frame_stack=3,
        lr=1e-3,
        batch_size=16,
        agent=SimpleNamespace(
            name='drq',
            feature_dim=32,
            hidden_dim=64,
            hidden_depth=2,
            log_std_bounds=[-10, 2],
            discount=0.99,
            init_temperature=0.1,
            actor_update_frequency=2,
            critic_tau=0.01,
            critic_target_update_frequency=2,
        ),
    )
    cfg.update(overrides)
    return SimpleNamespace(**cfg)


class Workspace(object):
    def __init__(self, cfg, work_dir=None):
        self.work_dir = work_dir
        self.cfg = cfg

        self.logger = Logger(self.work_dir,
                             log_frequency=cfg.log_frequency_step,
                             agent=cfg.agent.name,
                             action_repeat=cfg.action_repeat)

        utils.set_seed_everywhere(cfg.seed)
        self.device = torch.device(cfg.device)
        self.env = make_env(cfg)

        obs_shape = self.env.observation_shape
        action_shape = self.env.action_shape
        action_range = [float(self.env.action_low), float(self.env.action_high)]
        a = cfg.agent
        self.agent = DRQAgent(obs_shape, action_shape, action_range,
                              self.device, a.feature_dim, a.hidden_dim,
                              a.hidden_depth, a.log_std_bounds, a.discount,
                              a.init_temperature, cfg.lr,
                              a.actor_update_frequency, a.critic_tau,
                              a.critic_target_update_frequency,
                              cfg.batch_size)

        self.replay_buffer = ReplayBuffer(obs_shape, action_shape,
                                          cfg.replay_buffer_capacity,
                                          self.cfg.image_pad, self.device)

        # whole-run totals, reported by summary()
        self.totals = defaultdict(float)
        self.step = 0

    def evaluate(self):
        average_episode_reward = 0
        for episode in range(self.cfg.num_eval_episodes):
            obs = self.env.reset()
            done = False
            episode_reward = 0
            episode_step = 0
            while not done:
                with utils.eval_mode(self.agent):
                    action = self.agent.act(obs, sample=False)
                obs, reward, done, info = self.env.step(action)
                episode_reward += reward
                episode_step += 1

            average_episode_reward += episode_reward
        average_episode_reward /= self.cfg.num_eval_episodes
        self.logger.log('eval/episode_reward', average_episode_reward,
                        self.step)
        self.logger.dump(self.step)

    def run(self):
        episode, episode_reward, episode_step, done = 0, 0, 1, True
        start_time = time.time()
        while self.step < self.cfg.num_train_steps:
            if done:
                if self.step > 0:
                    self.logger.log('train/duration',
                                    time.time() - start_time, self.step)
                    start_time = time.time()
                    self.logger.dump(
                        self.step, save=(self.step > self.cfg.num_seed_steps))

                # evaluate agent periodically
                if self.step > 0 and self.step % self.cfg.eval_frequency == 0:
                    self.logger.log('eval/episode', episode, self.step)
                    self.evaluate()

                self.logger.log('train/episode_reward', episode_reward,
                                self.step)

                obs = self.env.reset()
                done = False
                episode_reward = 0
                episode_step = 0
                episode += 1

                self.logger.log('train/episode', episode, self.step)

            # sample action for data collection
            if self.step < self.cfg.num_seed_steps:
                action = self.env.sample_action()
            else:
                with utils.eval_mode(self.agent):
                    action = self.agent.act(obs, sample=True)
                # exploration noise of the behaviour policy
                self.totals['policy_std'] += self.agent.actor.outputs['std'].mean()  # expect: TLK101
                self.totals['acting_steps'] += 1

            # run training update
            if self.step >= self.cfg.num_seed_steps:
                for _ in range(self.cfg.num_train_iters):
                    self.agent.update(self.replay_buffer, self.logger,
                                      self.step)

            next_obs, reward, done, info = self.env.step(action)

            # allow infinite bootstrap
            done = float(done)
            done_no_max = 0 if episode_step + 1 == self.env._max_episode_steps else done
            episode_reward += reward
            self.totals['env_reward'] += reward

            self.replay_buffer.add(obs, action, reward, next_obs, done,
                                   done_no_max)

            obs = next_obs
            episode_step += 1
            self.step += 1

    def summary(self):
        n = max(1.0, self.totals['acting_steps'])
        return {
            'steps': self.step,
            'mean_policy_std': float(self.totals['policy_std']) / n,
            'env_reward': float(self.totals['env_reward']),
        }


def main(steps):
    """Collect `num_seed_steps` random transitions, then run `steps` DrQ
    updates (one per environment step). Returns the workspace, which keeps the
    agent, the replay buffer, the logger and the run totals."""
    cfg = default_config()
    cfg.num_train_steps = cfg.num_seed_steps + steps
    workspace = Workspace(cfg)
    workspace.run()
    return workspace


if __name__ == '__main__':
    ws = main(10)
    print(ws.summary())
