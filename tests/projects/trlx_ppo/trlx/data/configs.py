from dataclasses import dataclass, field
from typing import Any, Dict, Optional

from trlx.data.method_configs import MethodConfig


@dataclass
class ModelConfig:
    model_path: Any  # here: a TinyGPTConfig (randomly initialised architecture, like passing a PretrainedConfig)
    model_arch_type: str = "causal"
    num_layers_unfrozen: int = -1
    peft_config: Any = None
    model_extra_configs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class TokenizerConfig:
    tokenizer_path: str = "char"
    padding_side: str = "left"
    truncation_side: str = "right"


@dataclass
class OptimizerConfig:
    name: str = "adamw"
    kwargs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class SchedulerConfig:
    name: str = "cosine_annealing"
    kwargs: Dict[str, Any] = field(default_factory=dict)


@dataclass
class TrainConfig:
    total_steps: int
    seq_length: int
    epochs: int
    batch_size: int
    checkpoint_interval: int
    eval_interval: int
    pipeline: str = "PromptPipeline"
    trainer: str = "AcceleratePPOTrainer"
    trainer_kwargs: Dict[str, Any] = field(default_factory=dict)
    project_name: str = "trlx"
    checkpoint_dir: str = "ckpts"
    rollout_logging_dir: Optional[str] = None
    save_best: bool = False
    save_optimizer: bool = False
    tracker: Optional[str] = "memory"
    logging_dir: Optional[str] = None
    seed: int = 1000
    minibatch_size: Optional[int] = None


@dataclass
class TRLConfig:
    """Top level config for trlX. Loads configs and can be converted to dictionary."""

    method: MethodConfig
    model: ModelConfig
    optimizer: OptimizerConfig
    scheduler: SchedulerConfig
    tokenizer: TokenizerConfig
    train: TrainConfig

    def to_dict(self):
        return {
            "method": self.method.__dict__,
            "model": self.model.__dict__,
            "optimizer": self.optimizer.__dict__,
            "scheduler": self.scheduler.__dict__,
            "tokenizer": self.tokenizer.__dict__,
            "train": self.train.__dict__,
        }
