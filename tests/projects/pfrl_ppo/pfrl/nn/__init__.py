from pfrl.nn.branched import Branched  # NOQA
from pfrl.nn.empirical_normalization import EmpiricalNormalization  # NOQA
