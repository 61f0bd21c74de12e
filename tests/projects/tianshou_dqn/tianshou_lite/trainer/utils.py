import time
from typing import Any, Dict, Optional


def gather_info(
    start_time: float,
    train_c: Optional[Any],
    best_reward: float,
    best_reward_std: float,
) -> Dict[str, Any]:
    """A simple wrapper of gathering information from collectors.

    :return: A dictionary with the following keys: ``train_step``,
        ``train_episode``, ``train_time/collector``, ``train_time/model``,
        ``train_speed``, ``best_reward``, ``best_result``, ``duration``.
    """
    duration = time.time() - start_time
    model_time = duration
    result: Dict[str, Any] = {"duration": f"{duration:.2f}s", "train_time/model": f"{model_time:.2f}s"}
    if train_c is not None:
        model_time -= train_c.collect_time
        train_speed = train_c.collect_step / max(duration, 1e-9)
        result.update(
            {
                "train_step": train_c.collect_step,
                "train_episode": train_c.collect_episode,
                "train_time/collector": f"{train_c.collect_time:.2f}s",
                "train_time/model": f"{model_time:.2f}s",
                "train_speed": f"{train_speed:.2f} step/s",
            }
        )
    result["best_reward"] = best_reward
    result["best_result"] = f"{best_reward:.2f} ± {best_reward_std:.2f}"
    return result
