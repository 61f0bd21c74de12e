from .ddpg_impl import DDPGBaseImpl, DDPGBaseModules  # noqa: F401
from .td3_impl import TD3Impl  # noqa: F401
from .td3_plus_bc_impl import TD3PlusBCImpl  # noqa: F401
