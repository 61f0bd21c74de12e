import time
from collections import defaultdict
from typing import Callable, Dict, Optional, Union

from tianshou_lite.data import Collector
from tianshou_lite.policy import BasePolicy
from tianshou_lite.trainer.utils import gather_info
from tianshou_lite.utils import BaseLogger, LazyLogger, MovAvg


def offpolicy_trainer(
    policy: BasePolicy,
    train_collector: Collector,
    max_epoch: int,
    step_per_epoch: int,
    step_per_collect: int,
    batch_size: int,
    update_per_step: Union[int, float] = 1,
    train_fn: Optional[Callable[[int, int], None]] = None,
    stop_fn: Optional[Callable[[float], bool]] = None,
    save_fn: Optional[Callable[[BasePolicy], None]] = None,
    logger: BaseLogger = LazyLogger(),
    verbose: bool = False,
) -> Dict[str, Union[float, str]]:
    """A wrapper for off-policy trainer procedure.

    The "step" in trainer means an environment step (a.k.a. transition).

    :return: See :func:`~tianshou.trainer.gather_info`, plus ``td_abs_mean``
        (mean absolute TD error over all gradient steps).
    """
    start_epoch, env_step, gradient_step = 0, 0, 0
    last_rew, last_len = 0.0, 0.0
    best_reward, best_reward_std = float("-inf"), 0.0
    stat: Dict[str, MovAvg] = defaultdict(MovAvg)
    td_abs_sum = 0.0
    start_time = time.time()
    train_collector.reset_stat()

    for epoch in range(1 + start_epoch, 1 + max_epoch):
        policy.train()
        n = 0
        while n < step_per_epoch:
            if train_fn:
                train_fn(epoch, env_step)
            result = train_collector.collect(n_step=step_per_collect)
            env_step += int(result["n/st"])
            n += int(result["n/st"])
            logger.log_train_data(result, env_step)
            last_rew = result["rew"] if result["n/ep"] > 0 else last_rew
            last_len = result["len"] if result["n/ep"] > 0 else last_len
            if result["n/ep"] > 0 and result["rew"] > best_reward:
                best_reward, best_reward_std = result["rew"], result["rew_std"]
                if save_fn:
                    save_fn(policy)
            data = {"env_step": str(env_step), "rew": f"{last_rew:.2f}", "len": str(int(last_len))}
            for _ in range(round(update_per_step * result["n/st"])):
                gradient_step += 1
                losses = policy.update(batch_size, train_collector.buffer)
                td_abs_sum += losses["td"]  # expect: TLK101
                for k in losses.keys():
                    stat[k].add(losses[k])
                    losses[k] = stat[k].get()
                    data[k] = f"{losses[k]:.3f}"
                logger.log_update_data(losses, gradient_step)
            if verbose:
                print(data)
        logger.save_data(epoch, env_step, gradient_step)
        if stop_fn and stop_fn(best_reward):
            break

    info = gather_info(start_time, train_collector, best_reward, best_reward_std)
    info["td_abs_mean"] = td_abs_sum / max(gradient_step, 1)
    return info
