"""DQN on a deterministic chain environment, in the style of tianshou's
``test/discrete/test_dqn.py``."""
# Modelled on: https://github.com/thu-ml/tianshou

import argparse
import pprint

import torch

from envs import ChainEnv
from tianshou_lite.data import Batch, Collector, ReplayBuffer
from tianshou_lite.env import DummyVectorEnv
from tianshou_lite.policy import DQNPolicy
from tianshou_lite.trainer import offpolicy_trainer
from tianshou_lite.utils import MemoryLogger, RunningMeanStd
from tianshou_lite.utils.net.common import Net


def get_args(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1626)
    parser.add_argument("--eps-train", type=float, default=0.1)
    parser.add_argument("--buffer-size", type=int, default=20000)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--gamma", type=float, default=0.9)
    parser.add_argument("--n-step", type=int, default=3)
    parser.add_argument("--target-update-freq", type=int, default=50)
    parser.add_argument("--step-per-collect", type=int, default=4)
    parser.add_argument("--update-per-step", type=float, default=0.25)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden-sizes", type=int, nargs="*", default=[64, 64])
    parser.add_argument("--training-num", type=int, default=4)
    return parser.parse_args(argv or [])


def make_obs_normalizer():
    obs_rms = RunningMeanStd()

    def preprocess_fn(**kwargs):
        # only obs / obs_next are touched; the running statistics see raw data
        out = Batch()
        for key in ("obs", "obs_next"):
            if key in kwargs:
                obs_rms.update(kwargs[key])
                out[key] = obs_rms.norm(kwargs[key]).float()
        return out

    return preprocess_fn, obs_rms


def main(steps=30, args=None):
    args = args or get_args()
    torch.manual_seed(args.seed)
    train_envs = DummyVectorEnv([lambda: ChainEnv() for _ in range(args.training_num)])
    train_envs.seed(args.seed)
    state_shape = train_envs.envs[0].obs_dim
    action_shape = ChainEnv.action_num

    net = Net(state_shape, action_shape, hidden_sizes=args.hidden_sizes)
    optim = torch.optim.Adam(net.parameters(), lr=args.lr)
    policy = DQNPolicy(
        net, optim, args.gamma, args.n_step, target_update_freq=args.target_update_freq
    )
    buf = ReplayBuffer(args.buffer_size)
    preprocess_fn, obs_rms = make_obs_normalizer()
    train_collector = Collector(policy, train_envs, buf, preprocess_fn=preprocess_fn, exploration_noise=True)
    # warm up the buffer with random actions
    train_collector.collect(n_step=args.batch_size, random=True)
    logger = MemoryLogger()

    def train_fn(epoch, env_step):
        policy.set_eps(args.eps_train)

    # one gradient step per collect of ``step_per_collect`` transitions
    result = offpolicy_trainer(
        policy,
        train_collector,
        max_epoch=1,
        step_per_epoch=steps * args.step_per_collect,
        step_per_collect=args.step_per_collect,
        batch_size=args.batch_size,
        update_per_step=args.update_per_step,
        train_fn=train_fn,
        logger=logger,
    )
    return {
        "policy": policy,
        "collector": train_collector,
        "logger": logger,
        "obs_rms": obs_rms,
        "result": result,
    }


if __name__ == "__main__":
    out = main(30)
    pprint.pprint(out["result"])
    print("updates logged:", sum(1 for h in out["logger"].history if h[0].startswith("update")))
