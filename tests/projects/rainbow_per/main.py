# Modelled on main.py of Kaixhin/Rainbow: the script builds the Agent and the prioritized
# ReplayMemory, fills a validation memory with random states, then for T in range(T_max) acts,
# appends the transition, anneals the importance-sampling weight, calls dqn.learn(mem) every
# replay_frequency steps after learn_start, updates the target net, and runs test() every
# evaluation_interval steps. Written anew and much smaller: a toy chain environment with vector
# states stands in for Atari, and a Stats object from utils.py collects the logged losses.
import argparse
import random

import torch

from agent import Agent
from memory import ReplayMemory
from test import test
from utils import Stats


class ChainEnv(object):
    def __init__(self, state_dim=8, length=6):
        self.state_dim, self.length, self.t = state_dim, length, 0

    def action_space(self):
        return 3

    def reset(self):
        self.t = 0
        return torch.randn(self.state_dim)

    def step(self, action):
        self.t += 1
        return torch.randn(self.state_dim), float(action == 1), self.t >= self.length


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='Rainbow')
    parser.add_argument('--T-max', type=int, default=200)
    parser.add_argument('--state-dim', type=int, default=8)
    parser.add_argument('--hidden-size', type=int, default=32)
    parser.add_argument('--atoms', type=int, default=11)
    parser.add_argument('--V-min', type=float, default=-10)
    parser.add_argument('--V-max', type=float, default=10)
    parser.add_argument('--memory-capacity', type=int, default=500)
    parser.add_argument('--replay-frequency', type=int, default=1)
    parser.add_argument('--priority-exponent', type=float, default=0.5)
    parser.add_argument('--priority-weight', type=float, default=0.4)
    parser.add_argument('--multi-step', type=int, default=3)
    parser.add_argument('--discount', type=float, default=0.99)
    parser.add_argument('--target-update', type=int, default=50)
    parser.add_argument('--learning-rate', type=float, default=1e-3)
    parser.add_argument('--adam-eps', type=float, default=1.5e-4)
    parser.add_argument('--batch-size', type=int, default=16)
    parser.add_argument('--norm-clip', type=float, default=10)
    parser.add_argument('--learn-start', type=int, default=32)
    parser.add_argument('--evaluation-interval', type=int, default=100)
    parser.add_argument('--evaluation-episodes', type=int, default=2)
    parser.add_argument('--evaluation-size', type=int, default=16)
    parser.add_argument('--log-interval', type=int, default=50)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    random.seed(0)
    torch.manual_seed(0)
    env = ChainEnv(args.state_dim)
    dqn = Agent(args, env.action_space())
    mem = ReplayMemory(args, args.memory_capacity)
    priority_weight_increase = (1 - args.priority_weight) / (args.T_max - args.learn_start)
    val_mem = [env.reset() for _ in range(args.evaluation_size)]
    metrics = {'steps': [], 'rewards': [], 'Qs': [], 'best_avg_reward': -float('inf')}
    stats = Stats()
    q_trace = []

    done = True
    for T in range(1, args.T_max + 1):
        if done:
            state, done = env.reset(), False
        action = dqn.act(state)
        q_trace.append(dqn.act_q(state))  # clean: Agent.act_q in agent.py runs under torch.no_grad()
        next_state, reward, done = env.step(action)
        mem.append(state, action, reward, next_state, done)
        stats.add('reward', reward)
        state = next_state

        if T >= args.learn_start:
            mem.priority_weight = min(mem.priority_weight + priority_weight_increase, 1)
            if T % args.replay_frequency == 0:
                loss = dqn.learn(mem)
                stats.add('loss', loss)  # expect: TLK101 (utils.py)
            if T % args.evaluation_interval == 0:
                avg_reward, avg_Q, _ = test(args, T, dqn, val_mem, metrics, env)
                print(f"T = {T} / {args.T_max} | Avg. reward: {avg_reward:.2f} | Avg. Q: {avg_Q:.3f}")
            if T % args.target_update == 0:
                dqn.update_target_net()
            if T % args.log_interval == 0:
                print(f"T = {T} | mean loss {float(stats.mean('loss')):.4f} | mean reward {stats.mean('reward'):.3f}")
    return dqn, mem, stats, metrics, q_trace


if __name__ == '__main__':
    main()
