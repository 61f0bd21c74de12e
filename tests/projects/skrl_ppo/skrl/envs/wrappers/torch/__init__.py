from skrl.envs.wrappers.torch.base import Wrapper
from skrl.envs.wrappers.torch.point_mass import PointMassEnv
