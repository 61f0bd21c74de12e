# Modelled on: https://github.com/DLR-RM/stable-baselines3 (stable_baselines3/ppo/ppo.py, common/on_policy_algorithm.py, common/buffers.py, common/logger.py)
"""Train PPO on a small deterministic vectorized task, the way an rl-zoo script drives SB3."""

import argparse
import io
import sys

from sb3lite import PPO
from sb3lite.common import logger as sb3_logger
from sb3lite.common.utils import KLAdaptiveClipRange
from sb3lite.common.vec_env import DummyVecEnv

N_ENVS = 2
N_STEPS = 16


def main(steps: int = 30, verbose: int = 0):
    """Runs `steps` PPO iterations (one rollout batch of N_ENVS * N_STEPS each); returns the model."""
    env = DummyVecEnv(n_envs=N_ENVS, seed=0)
    model = PPO(
        "MlpPolicy",
        env,
        learning_rate=3e-4,
        n_steps=N_STEPS,
        batch_size=16,
        n_epochs=2,
        clip_range=KLAdaptiveClipRange(initial_value=0.2, target_kl=0.02),
        normalize_value_loss=True,
        ent_coef=0.01,
        policy_kwargs={"net_arch": [32, 32]},
        seed=0,
        device="cpu",
        verbose=verbose,
    )
    # keep the tables out of the way unless verbose; the history stays in memory
    out = sys.stdout if verbose else io.StringIO()
    logger = sb3_logger.configure(None, ["history"])
    logger.output_formats.append(sb3_logger.HumanOutputFormat(out))
    model.set_logger(logger)
    model.learn(total_timesteps=steps * N_ENVS * N_STEPS)
    return model


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=30)
    args = parser.parse_args()
    main(args.steps, verbose=1)
