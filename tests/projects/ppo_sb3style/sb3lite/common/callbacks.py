from typing import Any, Dict, List


class BaseCallback:
    """
    Base class for callback.

    Events: on_training_start, on_rollout_start, on_step (every env step),
    on_rollout_end, on_update_end (after each gradient step), on_training_end.
    ``self.locals`` gives access to the caller's local variables.
    """

    def __init__(self, verbose: int = 0):
        self.n_calls = 0
        self.num_timesteps = 0
        self.verbose = verbose
        self.locals: Dict[str, Any] = {}
        self.model = None

    def init_callback(self, model) -> None:
        self.model = model

    def update_locals(self, locals_: Dict[str, Any]) -> None:
        self.locals.update(locals_)

    def on_training_start(self) -> None:
        self._on_training_start()

    def on_rollout_start(self) -> None:
        self._on_rollout_start()

    def on_step(self) -> bool:
        self.n_calls += 1
        self.num_timesteps = self.model.num_timesteps
        return self._on_step()

    def on_rollout_end(self) -> None:
        self._on_rollout_end()

    def on_update_end(self) -> None:
        self._on_update_end()

    def on_training_end(self) -> None:
        self._on_training_end()
        self.locals.clear()

    def _on_training_start(self) -> None:
        pass

    def _on_rollout_start(self) -> None:
        pass

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        pass

    def _on_update_end(self) -> None:
        pass

    def _on_training_end(self) -> None:
        pass


class CallbackList(BaseCallback):
    def __init__(self, callbacks: List[BaseCallback]):
        super().__init__()
        self.callbacks = callbacks

    def init_callback(self, model) -> None:
        super().init_callback(model)
        for cb in self.callbacks:
            cb.init_callback(model)

    def update_locals(self, locals_: Dict[str, Any]) -> None:
        for cb in self.callbacks:
            cb.update_locals(locals_)

    def _on_training_start(self) -> None:
        for cb in self.callbacks:
            cb.on_training_start()

    def _on_rollout_start(self) -> None:
        for cb in self.callbacks:
            cb.on_rollout_start()

    def _on_step(self) -> bool:
        return all([cb.on_step() for cb in self.callbacks])

    def _on_rollout_end(self) -> None:
        for cb in self.callbacks:
            cb.on_rollout_end()

    def _on_update_end(self) -> None:
        for cb in self.callbacks:
            cb.on_update_end()

    def _on_training_end(self) -> None:
        for cb in self.callbacks:
            cb.on_training_end()


class RewardTrackerCallback(BaseCallback):
    """Mean environment reward of every rollout step (python floats)."""

    def __init__(self):
        super().__init__()
        self.step_rewards: List[float] = []

    def _on_step(self) -> bool:
        self.step_rewards.append(self.locals["rewards"].mean().item())
        return True


class ValueDiagnosticsCallback(BaseCallback):
    """Keeps the spread of the critic's predictions at every gradient step, and the
    mean bootstrap value of every rollout, to plot the critic's drift."""

    def __init__(self):
        super().__init__()
        self.value_spread: List[Any] = []
        self.rollout_value_means: List[Any] = []

    def _on_rollout_end(self) -> None:
        # rollout values were computed under no_grad
        self.rollout_value_means.append(self.locals["values"].mean())

    def _on_update_end(self) -> None:
        self.value_spread.append(self.locals["values"].std())  # known-miss: TLK102
