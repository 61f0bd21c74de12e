# Re-exported as in ikostrikov/pytorch-a2c-ppo-acktr-gail (a2c_ppo_acktr/algo/__init__.py).
from .a2c_acktr import A2C_ACKTR
