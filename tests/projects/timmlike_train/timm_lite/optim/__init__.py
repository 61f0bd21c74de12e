from .sgdw import SGDW
from ._optim_factory import create_optimizer_v2, param_groups_weight_decay
