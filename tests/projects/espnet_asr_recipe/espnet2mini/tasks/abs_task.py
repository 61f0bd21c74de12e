"""Abstract task module (trimmed port of espnet2.tasks.abs_task)."""
import json
import logging
import random
from abc import ABC, abstractmethod
from pathlib import Path
from typing import Any, Dict, List, Optional

import torch

from espnet2mini.schedulers.warmup_lr import WarmupLR
from espnet2mini.train.reporter import Reporter
from espnet2mini.train.trainer import Trainer

optim_classes = dict(
    adam=torch.optim.Adam,
    adamw=torch.optim.AdamW,
    sgd=torch.optim.SGD,
)
scheduler_classes = dict(
    warmuplr=WarmupLR,
    steplr=torch.optim.lr_scheduler.StepLR,
)


class AbsTask(ABC):
    # Use @staticmethod, or @classmethod,
    # instead of instance method to avoid God classes

    # If you need more than one optimizers, change this value in inheritance
    num_optimizers: int = 1
    trainer = Trainer

    def __init__(self):
        raise RuntimeError("This class can't be instantiated.")

    @classmethod
    @abstractmethod
    def build_model(cls, args: Dict[str, Any]) -> torch.nn.Module:
        raise NotImplementedError

    @classmethod
    @abstractmethod
    def build_iter_factory(cls, args: Dict[str, Any], mode: str):
        raise NotImplementedError

    @classmethod
    def build_optimizers(cls, args: Dict[str, Any], model: torch.nn.Module) -> List[torch.optim.Optimizer]:
        if cls.num_optimizers != 1:
            raise RuntimeError(
                "build_optimizers() must be overridden if num_optimizers != 1"
            )
        optim_class = optim_classes.get(args["optim"])
        if optim_class is None:
            raise ValueError(f"must be one of {list(optim_classes)}: {args['optim']}")
        optim = optim_class(model.parameters(), **args["optim_conf"])
        optimizers = [optim]
        return optimizers

    @classmethod
    def build_schedulers(cls, args, optimizers):
        schedulers = []
        for optim in optimizers:
            name = args.get("scheduler")
            if name is None:
                schedulers.append(None)
                continue
            scheduler_class = scheduler_classes[name.lower()]
            schedulers.append(scheduler_class(optim, **args.get("scheduler_conf", {})))
        return schedulers

    @classmethod
    def load_config(cls, path: Path) -> Dict[str, Any]:
        with Path(path).open("r", encoding="utf-8") as f:
            return json.load(f)

    @classmethod
    def main(cls, args: Dict[str, Any]) -> Dict[str, Any]:
        # 0. Init distributed process / seeds
        random.seed(args["seed"])
        torch.manual_seed(args["seed"])

        # 1. Build model
        model = cls.build_model(args=args)
        logging.info(model)

        # 2. Build optimizers / schedulers
        optimizers = cls.build_optimizers(args=args, model=model)
        schedulers = cls.build_schedulers(args, optimizers)

        # 3. Build iterator factories
        train_iter_factory = cls.build_iter_factory(args, mode="train")
        valid_iter_factory = cls.build_iter_factory(args, mode="valid")

        # 4. Start training
        reporter = Reporter()
        trainer_options = cls.trainer.build_options(args)
        cls.trainer.run(
            model=model,
            optimizers=optimizers,
            schedulers=schedulers,
            train_iter_factory=train_iter_factory,
            valid_iter_factory=valid_iter_factory,
            reporter=reporter,
            trainer_options=trainer_options,
        )
        return {"model": model, "optimizers": optimizers, "reporter": reporter}
