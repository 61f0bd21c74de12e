from sb3lite.ppo import PPO

__all__ = ["PPO"]
