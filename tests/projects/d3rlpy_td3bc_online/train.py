# Modelled on: https://github.com/takuseno/d3rlpy/blob/master/reproductions/finetuning/iql_finetune.py
#   (offline-to-online fine-tuning flow, here with TD3+BC: d3rlpy/algos/qlearning/td3_plus_bc.py +
#    torch/td3_plus_bc_impl.py,
#    online loop: d3rlpy/algos/qlearning/base.py fit_online, buffer: d3rlpy/dataset/buffers.py,
#    logger: d3rlpy/logging/logger.py)
import argparse

import torch

import d3rlpy
from d3rlpy.algos import NormalNoise, ProportionalNormalNoise
from d3rlpy.dataset import Episode, create_fifo_replay_buffer
from d3rlpy.envs import PointMassEnv
from d3rlpy.logging import InMemoryAdapterFactory


def make_offline_episodes(n_episodes=6, seed=1):
    """Scripted 'medium' dataset: proportional controller towards the goal + noise."""
    env = PointMassEnv(seed=seed)
    gen = torch.Generator().manual_seed(seed)
    episodes = []
    with torch.no_grad():
        for _ in range(n_episodes):
            obs, _ = env.reset()
            observations, actions, rewards = [], [], []
            done = False
            terminal = False
            while not done:
                action = (2.0 * (obs[4:6] - obs[0:2]) + 0.3 * torch.randn(2, generator=gen)).clamp(-1, 1)
                nxt, reward, terminal, truncated, _ = env.step(action)
                observations.append(obs)
                actions.append(action)
                rewards.append(reward)
                obs = nxt
                done = terminal or truncated
            episodes.append(Episode(
                observations=torch.stack(observations), actions=torch.stack(actions),
                rewards=torch.tensor(rewards).view(-1, 1), terminated=terminal,
            ))
    return episodes


def main(steps=10, seed=0):
    torch.manual_seed(seed)
    env = PointMassEnv(seed=seed)
    buffer = create_fifo_replay_buffer(limit=100000, episodes=make_offline_episodes(), seed=seed)

    td3 = d3rlpy.algos.TD3PlusBCConfig(batch_size=32, critic_action_gp=0.1).create()
    td3.build_with_env(env)

    # greedy evaluation helper explorer stays on the no_grad API
    eval_explorer = NormalNoise(std=0.0, seed=seed)
    explorer = ProportionalNormalNoise(std=0.1, seed=seed)

    logger = td3.fit_online(
        env,
        buffer,
        explorer=explorer,
        n_steps=steps,
        n_steps_per_epoch=5,
        update_start_step=0,
        logger_adapter=InMemoryAdapterFactory(),
        experiment_name="td3_plus_bc_finetune",
    )
    with torch.no_grad():
        obs, _ = env.reset()
        greedy = eval_explorer.sample(td3, obs.unsqueeze(0), steps)
    return {"algo": td3, "buffer": buffer, "logger": logger, "explorer": explorer, "greedy_action": greedy}


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    out = main(parser.parse_args().steps)
    print({k: v[-1] for k, v in out["logger"].adapter.history.items()})
