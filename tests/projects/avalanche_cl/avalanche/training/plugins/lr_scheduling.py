from avalanche.evaluation.metrics.mean import Mean
from avalanche.training.plugins.strategy_plugin import SupervisedPlugin


class LRSchedulerPlugin(SupervisedPlugin):
    """Learning Rate Scheduler Plugin.

    This plugin manages learning rate scheduling inside of a strategy using the
    PyTorch scheduler passed to the constructor. The step() method of the
    scheduler is called after each training epoch (or iteration, with step_granularity).
    Metric-based scheduling (ReduceLROnPlateau) is supported with metric="train_loss".
    """

    def __init__(self, scheduler, reset_scheduler=True, reset_lr=True, metric=None,
                 step_granularity="epoch", first_epoch_only=False,
                 first_exp_only=False):
        super().__init__()
        self.scheduler = scheduler
        self.reset_scheduler = reset_scheduler
        self.reset_lr = reset_lr
        self.metric = metric
        self.rolling_metric = Mean()
        self.step_granularity = step_granularity
        self.first_epoch_only = first_epoch_only
        self.first_exp_only = first_exp_only
        self._initial_lrs = [g["lr"] for g in scheduler.optimizer.param_groups]

        # Used to detect and manage the periodic eval phase
        self._was_training = False
        self._executed_train_iteration = False

        arg_names = type(self.scheduler).__init__.__code__.co_varnames
        if "metrics" in arg_names or type(self.scheduler).__name__ == "ReduceLROnPlateau":
            assert self.metric is not None, \
                "The scheduler requires a metric; set metric='train_loss'"
        if self.metric not in [None, "train_loss", "val_loss"]:
            raise ValueError('Only scheduling based on "train_loss" and "val_loss" is supported')

    def after_training_epoch(self, strategy, **kwargs):
        if self.step_granularity == "epoch" and self.metric in [None, "train_loss"]:
            self._step_scheduler(strategy, **kwargs)

    def before_training_iteration(self, strategy, **kwargs):
        self._executed_train_iteration = True

    def before_training_exp(self, strategy, **kwargs):
        if self.metric == "train_loss":
            self.rolling_metric.reset()

    def after_training_exp(self, strategy, **kwargs):
        if self.reset_lr:
            for group, lr in zip(strategy.optimizer.param_groups, self._initial_lrs):
                group["lr"] = lr
        if self.reset_scheduler and hasattr(self.scheduler, "last_epoch"):
            self.scheduler.last_epoch = 0

    def after_training_iteration(self, strategy, **kwargs):
        if self.metric == "train_loss":
            self.rolling_metric.update(strategy.loss, weight=len(strategy.mb_x))

        if self.step_granularity == "iteration" and self.metric in [None, "train_loss"]:
            self._step_scheduler(strategy, **kwargs)

    def _step_scheduler(self, strategy, **kwargs):
        if strategy.is_training:
            if self.metric == "train_loss":
                self.scheduler.step(metrics=self.rolling_metric.result())
                self.rolling_metric.reset()
            else:
                self.scheduler.step()
