from collections import defaultdict

from avalanche.training.plugins.strategy_plugin import BaseSGDPlugin


class EvaluationPlugin(BaseSGDPlugin):
    """Manager for logging (train and eval) metrics.

    Metrics are updated on every iteration of their mode and emitted at their
    `emit_at` granularity; emitted values are stored in `all_metric_results`
    as (x, value) pairs, like the InteractiveLogger/TextLogger would print them.
    """

    def __init__(self, *metrics, loggers=None):
        super().__init__()
        self.metrics = list(metrics)
        self.loggers = loggers or []
        self.all_metric_results = defaultdict(lambda: ([], []))
        self.last_metric_results = {}
        self._x = 0

    def _emit(self, strategy, granularity, mode):
        for m in self.metrics:
            if m._mode == mode and m._emit_at == granularity:
                name = f"{m}/{'train' if mode == 'train' else 'eval'}"
                value = m.result()
                xs, vals = self.all_metric_results[name]
                xs.append(strategy.clock.train_iterations)
                vals.append(value)
                self.last_metric_results[name] = value
                for logger in self.loggers:
                    logger.log_single_metric(name, value, strategy.clock.train_iterations)

    def _reset(self, granularity, mode):
        for m in self.metrics:
            if m._mode == mode and m._reset_at == granularity:
                m.reset()

    def before_training_epoch(self, strategy, **kwargs):
        self._reset("epoch", "train")

    def before_training_iteration(self, strategy, **kwargs):
        self._reset("iteration", "train")

    def after_training_iteration(self, strategy, **kwargs):
        for m in self.metrics:
            if m._mode == "train":
                m.update(strategy)
        self._emit(strategy, "iteration", "train")

    def after_training_epoch(self, strategy, **kwargs):
        self._emit(strategy, "epoch", "train")

    def before_eval(self, strategy, **kwargs):
        self._reset("stream", "eval")

    def after_eval_iteration(self, strategy, **kwargs):
        for m in self.metrics:
            if m._mode == "eval":
                m.update(strategy)

    def after_eval(self, strategy, **kwargs):
        self._emit(strategy, "stream", "eval")

    def get_last_metrics(self):
        return dict(self.last_metric_results)

    def get_all_metrics(self):
        return {k: (list(v[0]), list(v[1])) for k, v in self.all_metric_results.items()}


def default_evaluator():
    from avalanche.evaluation.metrics.loss import EpochLoss, StreamLoss
    from avalanche.evaluation.metrics.accuracy import EpochAccuracy, StreamAccuracy
    return EvaluationPlugin(EpochLoss(), EpochAccuracy(), StreamLoss(), StreamAccuracy())
