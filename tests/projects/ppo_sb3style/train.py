# Modelled on: https://github.com/DLR-RM/stable-baselines3
"""Train PPO on a deterministic toy task.

Follows stable_baselines3/ppo/ppo.py, common/on_policy_algorithm.py, common/buffers.py,
common/logger.py, common/callbacks.py and common/running_mean_std.py.
"""
from sb3lite import PPO
from sb3lite.common.callbacks import CallbackList, RewardTrackerCallback, ValueDiagnosticsCallback
from sb3lite.common.envs import GoToTargetVecEnv, VecNormalize

N_ENVS = 8
N_STEPS = 32
N_EPOCHS = 2  # full-batch epochs: two gradient steps per rollout


def main(steps):
    """Run ``steps`` gradient steps (``steps / N_EPOCHS`` rollouts of 256 transitions each).

    Returns the trained model (policy, logger, buffers) and the callbacks.
    """
    env = VecNormalize(GoToTargetVecEnv(num_envs=N_ENVS, max_steps=32, seed=0))
    model = PPO(env, n_steps=N_STEPS, batch_size=N_ENVS * N_STEPS, n_epochs=N_EPOCHS, learning_rate=3e-4, seed=0)
    callbacks = [RewardTrackerCallback(), ValueDiagnosticsCallback()]
    # log every 1000 iterations: the "train/" means cover the whole run here
    iterations = -(-steps // N_EPOCHS)
    model.learn(total_timesteps=iterations * N_ENVS * N_STEPS, callback=CallbackList(callbacks), log_interval=1000)
    return model, callbacks


if __name__ == "__main__":
    model, cbs = main(30)
    print(model._n_updates, {k: float(v) for k, v in model.logger.name_to_value.items()})
    print("rew", cbs[0].step_rewards[0], cbs[0].step_rewards[-1], "ep", list(model.ep_info_buffer)[-1])
