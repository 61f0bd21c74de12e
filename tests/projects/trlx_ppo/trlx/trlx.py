from typing import Callable, Dict, Iterable, List, Optional

from trlx.data.configs import TRLConfig
from trlx.pipeline.offline_pipeline import PromptPipeline
import trlx.trainer.accelerate_ppo_trainer  # noqa: F401  (registers AcceleratePPOTrainer)
from trlx.trainer import get_trainer
from trlx.utils import set_seed


def train(
    reward_fn: Optional[Callable[[List[str], List[str], List[str]], List[float]]] = None,
    prompts: Optional[List[str]] = None,
    eval_prompts: Optional[List[str]] = None,
    metric_fn: Optional[Callable[[List[str], List[str], List[str]], Dict[str, List[float]]]] = None,
    config: Optional[TRLConfig] = None,
    stop_sequences: Optional[List[str]] = [],
):
    """Runs online RL training (PPO) with `reward_fn` scoring generations of `prompts`."""
    set_seed(config.train.seed)

    trainer = get_trainer(config.train.trainer)(
        config=config,
        reward_fn=reward_fn,
        metric_fn=metric_fn,
        stop_sequences=stop_sequences,
        **config.train.trainer_kwargs,
    )

    batch_size = config.train.batch_size * int(1)
    max_prompt_length = config.train.seq_length - config.method.gen_kwargs["max_new_tokens"]

    # Online training against a reward function (e.g. PPO)
    if eval_prompts is None:
        eval_prompts = prompts[:batch_size]

    pipeline = PromptPipeline(prompts, max_prompt_length, trainer.tokenizer)
    trainer.add_prompt_pipeline(pipeline)

    eval_pipeline = PromptPipeline(eval_prompts, max_prompt_length, trainer.tokenizer)
    trainer.add_eval_pipeline(eval_pipeline)

    trainer.learn()
    return trainer
