from abc import abstractmethod
from typing import Any, Callable, Dict, Optional

import torch

from ...dataset import ReplayBuffer, TransitionMiniBatch, create_fifo_replay_buffer
from ...logging import LOG, D3RLPyLogger, InMemoryAdapterFactory
from ...torch_utility import TorchMiniBatch, eval_api, train_api
from .explorers import Explorer

__all__ = ["QLearningAlgoImplBase", "QLearningAlgoBase"]


class QLearningAlgoImplBase:
    def __init__(self, observation_shape, action_size: int, modules: Any, device: str):
        self._observation_shape = observation_shape
        self._action_size = action_size
        self._modules = modules
        self._device = device

    @property
    def modules(self) -> Any:
        return self._modules

    @train_api
    def update(self, batch: TorchMiniBatch, grad_step: int) -> Dict[str, float]:
        return self.inner_update(batch, grad_step)

    @abstractmethod
    def inner_update(self, batch: TorchMiniBatch, grad_step: int) -> Dict[str, float]:
        pass

    @eval_api
    def predict_best_action(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner_predict_best_action(x)

    @abstractmethod
    def inner_predict_best_action(self, x: torch.Tensor) -> torch.Tensor:
        pass

    @eval_api
    def sample_action(self, x: torch.Tensor) -> torch.Tensor:
        return self.inner_sample_action(x)

    @abstractmethod
    def inner_sample_action(self, x: torch.Tensor) -> torch.Tensor:
        pass


class QLearningAlgoBase:
    def __init__(self, config: Any, device: str = "cpu:0"):
        self._config = config
        self._device = "cpu"
        self._impl: Optional[QLearningAlgoImplBase] = None
        self._grad_step = 0

    @property
    def impl(self) -> Optional[QLearningAlgoImplBase]:
        return self._impl

    @property
    def config(self) -> Any:
        return self._config

    @property
    def batch_size(self) -> int:
        return self._config.batch_size

    @abstractmethod
    def inner_create_impl(self, observation_shape, action_size: int) -> None:
        pass

    def create_impl(self, observation_shape, action_size: int) -> None:
        self.inner_create_impl(observation_shape, action_size)

    def build_with_env(self, env: Any) -> None:
        self.create_impl(env.observation_shape, env.action_size)

    def predict(self, x: torch.Tensor) -> torch.Tensor:
        assert self._impl is not None
        with torch.no_grad():
            action = self._impl.predict_best_action(x.to(self._device))
        return action.cpu().detach()

    def sample_action(self, x: torch.Tensor) -> torch.Tensor:
        assert self._impl is not None
        with torch.no_grad():
            action = self._impl.sample_action(x.to(self._device))
        return action.cpu().detach()

    def update(self, batch: TransitionMiniBatch) -> Dict[str, float]:
        assert self._impl, "impl is not initialized"
        torch_batch = TorchMiniBatch.from_batch(batch=batch, device=self._device)
        loss = self._impl.update(torch_batch, self._grad_step)
        self._grad_step += 1
        return loss

    def fit_online(
        self,
        env: Any,
        buffer: Optional[ReplayBuffer] = None,
        explorer: Optional[Explorer] = None,
        n_steps: int = 1000000,
        n_steps_per_epoch: int = 10000,
        update_interval: int = 1,
        n_updates: int = 1,
        update_start_step: int = 0,
        random_steps: int = 0,
        logger_adapter: Any = None,
        experiment_name: Optional[str] = None,
        callback: Optional[Callable[["QLearningAlgoBase", int, int], None]] = None,
    ) -> D3RLPyLogger:
        if buffer is None:
            buffer = create_fifo_replay_buffer(1000000)
        if experiment_name is None:
            experiment_name = self.__class__.__name__ + "_online"
        logger = D3RLPyLogger(logger_adapter or InMemoryAdapterFactory(), experiment_name)

        if self._impl is None:
            LOG.debug("Building model...")
            self.build_with_env(env)
        logger.add_params({"batch_size": self.batch_size, "n_steps": n_steps})

        observation, _ = env.reset()
        rollout_return = 0.0
        for total_step in range(1, n_steps + 1):
            with logger.measure_time("step"):
                with logger.measure_time("inference"):
                    if total_step < random_steps:
                        action = env.sample_action()
                    elif explorer:
                        x = observation.reshape((1,) + tuple(observation.shape))
                        action = explorer.sample(self, x, total_step)[0]
                    else:
                        action = self.sample_action(observation.unsqueeze(0))[0]

                with logger.measure_time("environment_step"):
                    next_observation, reward, terminal, truncated, _ = env.step(action)
                    rollout_return += float(reward)

                clip_episode = terminal or truncated

                # store observation
                buffer.append(observation, action, float(reward))

                if clip_episode:
                    buffer.clip_episode(terminal)
                    observation, _ = env.reset()
                    logger.add_metric("rollout_return", rollout_return)
                    rollout_return = 0.0
                else:
                    observation = next_observation

                epoch = total_step // n_steps_per_epoch

                if total_step > update_start_step and buffer.transition_count > self.batch_size:
                    if total_step % update_interval == 0:
                        for _ in range(n_updates):
                            with logger.measure_time("sample_batch"):
                                batch = buffer.sample_transition_batch(self.batch_size)
                            with logger.measure_time("algorithm_update"):
                                loss = self.update(batch)
                            for name, val in loss.items():
                                logger.add_metric(name, val)

                if callback:
                    callback(self, epoch, total_step)

            if epoch > 0 and total_step % n_steps_per_epoch == 0:
                logger.commit(epoch, total_step)

        logger.commit(n_steps // n_steps_per_epoch + 1, n_steps)
        logger.close()
        return logger
