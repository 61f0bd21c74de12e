"""PPO on a tiny chain env with the (trimmed) PFRL library.

Modelled on https://github.com/pfnet/pfrl examples/mujoco/reproduction/ppo/train_ppo.py and
examples/atari/train_ppo_ale.py (LinearInterpolationHook lr schedule).
main(steps) runs `steps` PPO iterations (each = update_interval env steps followed by
`epochs` passes of minibatch updates) and returns a dict.
"""
import logging

import numpy as np
import torch
from torch import nn

import pfrl
from pfrl import experiments
from pfrl.agents import PPO
from pfrl.envs import NoisyChainEnv

UPDATE_INTERVAL = 32


def lecun_init(layer, gain=1):
    if isinstance(layer, (nn.Conv2d, nn.Linear)):
        torch.nn.init.orthogonal_(layer.weight, gain)
        nn.init.zeros_(layer.bias)
    return layer


def make_agent(obs_size, n_actions, total_steps):
    obs_normalizer = pfrl.nn.EmpiricalNormalization(obs_size, clip_threshold=5)

    policy = nn.Sequential(
        lecun_init(nn.Linear(obs_size, 64)),
        nn.Tanh(),
        lecun_init(nn.Linear(64, 64)),
        nn.Tanh(),
        lecun_init(nn.Linear(64, n_actions), 1e-2),
        pfrl.policies.SoftmaxCategoricalHead(),
    )
    vf = nn.Sequential(
        lecun_init(nn.Linear(obs_size, 64)),
        nn.Tanh(),
        lecun_init(nn.Linear(64, 64)),
        nn.Tanh(),
        lecun_init(nn.Linear(64, 1)),
    )
    model = pfrl.nn.Branched(policy, vf)
    opt = torch.optim.Adam(model.parameters(), lr=3e-4, eps=1e-5)

    agent = PPO(
        model,
        opt,
        obs_normalizer=obs_normalizer,
        gpu=-1,
        update_interval=UPDATE_INTERVAL,
        minibatch_size=16,
        epochs=2,
        clip_eps_vf=None,
        entropy_coef=0.01,
        standardize_advantages=True,
        gamma=0.995,
        lambd=0.97,
        max_grad_norm=0.5,
        value_stats_window=100,
        entropy_stats_window=100,
        value_loss_stats_window=1000,
        policy_loss_stats_window=40,
        clip_fraction_stats_window=20,
    )

    def lr_setter(env, agent, value):
        for param_group in agent.optimizer.param_groups:
            param_group["lr"] = value

    lr_hook = experiments.LinearInterpolationHook(total_steps, 3e-4, 0, lr_setter)
    return agent, [lr_hook]


def main(steps=10):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    np.random.seed(0)
    import random
    random.seed(0)

    env = NoisyChainEnv(seed=0)
    total_env_steps = steps * UPDATE_INTERVAL
    agent, step_hooks = make_agent(env.observation_size, env.n_actions, total_env_steps)

    experiments.train_agent(
        agent=agent,
        env=env,
        steps=total_env_steps,
        outdir=None,
        max_episode_len=env.max_steps,
        step_hooks=step_hooks,
        logger=logging.getLogger("train_ppo"),
    )
    return {"agent": agent, "statistics": dict(agent.get_statistics())}


if __name__ == "__main__":
    out = main(10)
    print(out["statistics"])
