from pfrl.agents.ppo import PPO  # NOQA
