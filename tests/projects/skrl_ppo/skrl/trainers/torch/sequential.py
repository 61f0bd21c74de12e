from __future__ import annotations

import dataclasses

from skrl.trainers.torch.base import Trainer, TrainerCfg


@dataclasses.dataclass(kw_only=True)
class SequentialTrainerCfg(TrainerCfg):
    pass


class SequentialTrainer(Trainer):
    def __init__(self, *, env, agents, scopes=None, cfg: SequentialTrainerCfg | dict = {}) -> None:
        """Train agents sequentially, i.e., one after the other, in each interaction with the environment."""
        super().__init__(
            env=env,
            agents=agents,
            scopes=scopes if scopes is not None else [],
            cfg=SequentialTrainerCfg(**cfg) if isinstance(cfg, dict) else cfg,
        )
        # init agents
        self.agents.init(trainer_cfg=self.cfg)

    def train(self) -> None:
        self.agents.enable_training_mode(True)
        super().train()

    def eval(self) -> None:
        self.agents.enable_training_mode(False)
        super().eval()
