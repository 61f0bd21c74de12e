"""Trainer package."""
# isort:skip_file

from tianshou_lite.trainer.utils import gather_info
from tianshou_lite.trainer.offpolicy import offpolicy_trainer

__all__ = ["offpolicy_trainer", "gather_info"]
