from tianshou_lite import data, env, policy, trainer, utils

__version__ = "0.4.5.dev0"

__all__ = ["env", "data", "utils", "policy", "trainer"]
