from skrl.trainers.torch.base import Trainer, TrainerCfg
from skrl.trainers.torch.sequential import SequentialTrainer, SequentialTrainerCfg
