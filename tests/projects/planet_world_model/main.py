# Modelled on main.py of Kaixhin/PlaNet: arguments, seed episodes of random actions into the
# ExperienceReplay, the models and the MPCPlanner, then per episode: collect_interval
# model-fitting steps, one data-collection episode, and a test episode every test_interval.
# Written anew and small: a point-mass environment with vector observations replaces the
# Gym/Control Suite environments, and the blocks of the loop live in trainer.WorldModelTrainer.
import argparse

import torch

from memory import ExperienceReplay
from models import Actor, Encoder, ObservationModel, RewardModel, TransitionModel
from planner import MPCPlanner
from trainer import WorldModelTrainer
from utils import MetricsLogger


class PointMassEnv(object):
    observation_size, action_size = 4, 2

    def __init__(self, max_episode_length):
        self.max_episode_length = max_episode_length

    def reset(self):
        self.t, self.pos, self.vel = 0, torch.randn(2), torch.zeros(2)
        return torch.cat([self.pos, self.vel])

    def step(self, action):
        self.t += 1
        self.vel = 0.9 * self.vel + 0.1 * action.clamp(-1, 1)
        self.pos = self.pos + self.vel
        reward = -float(self.pos.norm())
        return torch.cat([self.pos, self.vel]), reward, self.t >= self.max_episode_length

    def sample_random_action(self):
        return torch.rand(self.action_size) * 2 - 1


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='PlaNet')
    parser.add_argument('--seed', type=int, default=1)
    parser.add_argument('--max-episode-length', type=int, default=20)
    parser.add_argument('--experience-size', type=int, default=100000)
    parser.add_argument('--embedding-size', type=int, default=16)
    parser.add_argument('--hidden-size', type=int, default=16)
    parser.add_argument('--belief-size', type=int, default=16)
    parser.add_argument('--state-size', type=int, default=8)
    parser.add_argument('--action-noise', type=float, default=0.3)
    parser.add_argument('--episodes', type=int, default=4)
    parser.add_argument('--seed-episodes', type=int, default=3)
    parser.add_argument('--collect-interval', type=int, default=5)
    parser.add_argument('--batch-size', type=int, default=8)
    parser.add_argument('--chunk-size', type=int, default=6)
    parser.add_argument('--free-nats', type=float, default=3)
    parser.add_argument('--learning-rate', type=float, default=1e-3)
    parser.add_argument('--adam-epsilon', type=float, default=1e-4)
    parser.add_argument('--grad-clip-norm', type=float, default=1000)
    parser.add_argument('--planning-horizon', type=int, default=4)
    parser.add_argument('--optimisation-iters', type=int, default=3)
    parser.add_argument('--candidates', type=int, default=32)
    parser.add_argument('--top-candidates', type=int, default=8)
    parser.add_argument('--test-interval', type=int, default=2)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    env = PointMassEnv(args.max_episode_length)
    D = ExperienceReplay(args.experience_size)
    for s in range(1, args.seed_episodes + 1):
        observation, done = env.reset(), False
        while not done:
            action = env.sample_random_action()
            next_observation, reward, done = env.step(action)
            D.append(observation, action, reward, done)
            observation = next_observation
    transition_model = TransitionModel(args.belief_size, args.state_size, env.action_size, args.hidden_size, args.embedding_size)
    observation_model = ObservationModel(env.observation_size, args.belief_size, args.state_size)
    reward_model = RewardModel(args.belief_size, args.state_size, args.hidden_size)
    encoder = Encoder(env.observation_size, args.embedding_size)
    actor = Actor(args.belief_size, args.state_size, env.action_size)
    planner = MPCPlanner(env.action_size, args.planning_horizon, args.optimisation_iters, args.candidates, args.top_candidates, transition_model, reward_model)
    logger = MetricsLogger()
    trainer = WorldModelTrainer(args, env, transition_model, observation_model, reward_model, encoder, actor, planner, D, logger)
    for episode in range(1, args.episodes + 1):
        for s in range(args.collect_interval):
            loss = trainer.train_step()
        train_reward = trainer.collect_episode()
        print('episode %d: model loss %.3f, train reward %.2f' % (episode, loss, train_reward))
        if episode % args.test_interval == 0:
            test_reward, _ = trainer.evaluate()
            print('  test reward %.2f' % test_reward)
    return trainer


if __name__ == '__main__':
    main()
