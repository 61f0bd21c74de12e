"""Policy package."""
# isort:skip_file

from tianshou_lite.policy.base import BasePolicy
from tianshou_lite.policy.modelfree.dqn import DQNPolicy

__all__ = ["BasePolicy", "DQNPolicy"]
