from .ppo_trainer import PPOTrainer
