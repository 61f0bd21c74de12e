"""Modelled on Toni-SM/skrl: PPO on a vectorized point-mass task, wired like skrl's torch examples
(models -> memory -> agent cfg -> SequentialTrainer(cfg).train()).

main(steps): one step = one PPO update (``rollouts`` environment timesteps, then learning epochs).
"""
import torch
import torch.nn as nn

from skrl.agents.torch.ppo import PPO, PPO_CFG
from skrl.envs.wrappers.torch import PointMassEnv
from skrl.memories.torch import RandomMemory
from skrl.models.torch import DeterministicMixin, GaussianMixin, Model
from skrl.resources.preprocessors.torch import RunningStandardScaler
from skrl.resources.schedulers.torch import KLAdaptiveLR
from skrl.trainers.torch import SequentialTrainer
from skrl.utils import set_seed


# define the models (stochastic and deterministic models) using mixins
class Policy(GaussianMixin, Model):
    def __init__(self, observation_space, action_space, device, clip_actions=False,
                 clip_log_std=True, min_log_std=-20, max_log_std=2, reduction="sum"):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        GaussianMixin.__init__(self, clip_actions=clip_actions, clip_log_std=clip_log_std,
                               min_log_std=min_log_std, max_log_std=max_log_std, reduction=reduction)

        self.net = nn.Sequential(nn.Linear(self.num_observations, 64), nn.ELU(),
                                 nn.Linear(64, 64), nn.ELU())
        self.mean_layer = nn.Linear(64, self.num_actions)
        self.log_std_layer = nn.Linear(64, self.num_actions)

    def compute(self, inputs, role):
        x = self.net(inputs["observations"])
        return self.mean_layer(x), {"log_std": self.log_std_layer(x) - 0.5}


class Value(DeterministicMixin, Model):
    def __init__(self, observation_space, action_space, device, clip_actions=False):
        Model.__init__(self, observation_space=observation_space, action_space=action_space, device=device)
        DeterministicMixin.__init__(self, clip_actions=clip_actions)

        self.net = nn.Sequential(nn.Linear(self.num_observations, 64), nn.ELU(),
                                 nn.Linear(64, 64), nn.ELU(),
                                 nn.Linear(64, 1))

    def compute(self, inputs, role):
        return self.net(inputs["observations"]), {}


def main(steps: int) -> dict:
    set_seed(42)
    torch.set_num_threads(1)  # tiny models: intra-op threading only adds overhead on CPU
    device = torch.device("cpu")

    # load and wrap the environment
    env = PointMassEnv(num_envs=64, max_episode_length=24, seed=0)

    # instantiate a memory as rollout buffer (any memory can be used for this)
    rollouts = 2
    memory = RandomMemory(memory_size=rollouts, num_envs=env.num_envs, device=device)

    models = {
        "policy": Policy(env.observation_space, env.action_space, device),
        "value": Value(env.observation_space, env.action_space, device),
    }

    # configure and instantiate the agent
    cfg = PPO_CFG(
        rollouts=rollouts,
        learning_epochs=4,
        mini_batches=4,
        discount_factor=0.99,
        gae_lambda=0.95,
        learning_rate=3e-4,
        learning_rate_scheduler=KLAdaptiveLR,
        learning_rate_scheduler_kwargs={"kl_threshold": 0.008},
        observation_preprocessor=RunningStandardScaler,
        observation_preprocessor_kwargs={"size": env.observation_space, "device": device},
        value_preprocessor=RunningStandardScaler,
        value_preprocessor_kwargs={"size": 1, "device": device},
        grad_norm_clip=1.0,
        ratio_clip=0.2,
        value_clip=0.2,
        entropy_loss_scale=0.001,
        value_loss_scale=1.0,
    )
    # logging to TensorBoard every 1000 timesteps; no checkpoints in this port
    cfg.experiment.write_interval = 1000
    cfg.experiment.checkpoint_interval = 0

    agent = PPO(models=models, memory=memory, cfg=cfg, observation_space=env.observation_space,
                action_space=env.action_space, device=device)

    # configure and instantiate the RL trainer
    trainer = SequentialTrainer(cfg={"timesteps": steps * rollouts, "headless": True}, env=env, agents=agent)

    # start training
    trainer.train()

    return {
        "updates": len(agent.tracking_data["Loss / Policy loss"]),
        "policy_loss": float(agent.tracking_data["Loss / Policy loss"][-1]),
        "reward": float(agent.tracking_data["Reward / Instantaneous reward (mean)"][-1]),
    }


if __name__ == "__main__":
    import time
    t = time.time()
    print(main(30), f"{time.time() - t:.2f}s")
