from skrl.agents.torch.ppo.ppo import PPO
from skrl.agents.torch.ppo.ppo_cfg import PPO_CFG
