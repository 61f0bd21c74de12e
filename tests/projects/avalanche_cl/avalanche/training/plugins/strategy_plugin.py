class BasePlugin:
    """ABC for BaseTemplate plugins: every callback receives the strategy."""

    supports_distributed = False

    def before_training(self, strategy, *args, **kwargs):
        pass

    def before_training_exp(self, strategy, *args, **kwargs):
        pass

    def after_training_exp(self, strategy, *args, **kwargs):
        pass

    def after_training(self, strategy, *args, **kwargs):
        pass

    def before_eval(self, strategy, *args, **kwargs):
        pass

    def before_eval_exp(self, strategy, *args, **kwargs):
        pass

    def after_eval_exp(self, strategy, *args, **kwargs):
        pass

    def after_eval(self, strategy, *args, **kwargs):
        pass


class BaseSGDPlugin(BasePlugin):
    """ABC for BaseSGDTemplate plugins."""

    def before_training_epoch(self, strategy, *args, **kwargs):
        pass

    def before_training_iteration(self, strategy, *args, **kwargs):
        pass

    def before_forward(self, strategy, *args, **kwargs):
        pass

    def after_forward(self, strategy, *args, **kwargs):
        pass

    def before_backward(self, strategy, *args, **kwargs):
        pass

    def after_backward(self, strategy, *args, **kwargs):
        pass

    def after_training_iteration(self, strategy, *args, **kwargs):
        pass

    def before_update(self, strategy, *args, **kwargs):
        pass

    def after_update(self, strategy, *args, **kwargs):
        pass

    def after_training_epoch(self, strategy, *args, **kwargs):
        pass

    def before_eval_iteration(self, strategy, *args, **kwargs):
        pass

    def before_eval_forward(self, strategy, *args, **kwargs):
        pass

    def after_eval_forward(self, strategy, *args, **kwargs):
        pass

    def after_eval_iteration(self, strategy, *args, **kwargs):
        pass


class SupervisedPlugin(BaseSGDPlugin):
    """ABC for SupervisedTemplate plugins."""


def trigger_plugins(strategy, event, **kwargs):
    """Call plugins on a specific callback"""
    for p in strategy.plugins:
        if hasattr(p, event):
            getattr(p, event)(strategy, **kwargs)
