from torch.nn import CrossEntropyLoss

from avalanche.training.templates import SupervisedTemplate
from avalanche.training.plugins.ewc import EWCPlugin
from avalanche.training.plugins.lwf import LwFPlugin


class Naive(SupervisedTemplate):
    """Naive finetuning: the simplest (and least effective) Continual Learning
    strategy; plugins add replay / regularisation on top of it."""

    def __init__(self, model, optimizer, criterion=CrossEntropyLoss(), train_mb_size=1,
                 train_epochs=1, eval_mb_size=None, device="cpu", plugins=None,
                 evaluator=None, eval_every=-1, **base_kwargs):
        super().__init__(model, optimizer, criterion, train_mb_size=train_mb_size,
                         train_epochs=train_epochs, eval_mb_size=eval_mb_size, device=device,
                         plugins=plugins, evaluator=evaluator, eval_every=eval_every,
                         **base_kwargs)


class EWC(SupervisedTemplate):
    """Elastic Weight Consolidation (EWC) strategy."""

    def __init__(self, model, optimizer, criterion, ewc_lambda, mode="separate",
                 decay_factor=None, keep_importance_data=False, plugins=None, **kwargs):
        ewc = EWCPlugin(ewc_lambda, mode, decay_factor, keep_importance_data)
        plugins = [ewc] if plugins is None else list(plugins) + [ewc]
        super().__init__(model, optimizer, criterion, plugins=plugins, **kwargs)


class LwF(SupervisedTemplate):
    """Learning without Forgetting (LwF) strategy."""

    def __init__(self, model, optimizer, criterion, alpha, temperature, plugins=None, **kwargs):
        lwf = LwFPlugin(alpha, temperature)
        plugins = [lwf] if plugins is None else list(plugins) + [lwf]
        super().__init__(model, optimizer, criterion, plugins=plugins, **kwargs)
