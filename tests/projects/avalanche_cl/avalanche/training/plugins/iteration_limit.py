from avalanche.training.plugins.strategy_plugin import SupervisedPlugin


class IterationLimitPlugin(SupervisedPlugin):
    """Stops the training on the current experience after `max_iterations`
    mini-batches (the same `strategy.stop_training()` pattern CoPEPlugin uses)."""

    def __init__(self, max_iterations: int):
        super().__init__()
        self.max_iterations = max_iterations
        self.it_cnt = 0

    def before_training_exp(self, strategy, **kwargs):
        self.it_cnt = 0

    def after_training_iteration(self, strategy, **kwargs):
        self.it_cnt += 1
        if self.it_cnt >= self.max_iterations:
            strategy.stop_training()
