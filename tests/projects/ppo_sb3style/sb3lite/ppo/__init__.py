from sb3lite.ppo.ppo import PPO

__all__ = ["PPO"]
