from typing import Optional

import torch
from torch.utils.data import DataLoader

from avalanche.training.plugins.strategy_plugin import SupervisedPlugin
from avalanche.training.storage_policy import (
    ExemplarsBuffer,
    ParametricBuffer,
    ClosestToCenterSelectionStrategy,
)
from avalanche.training.utils import cycle


class ReplayDataLoader:
    """Custom data loader for rehearsal strategies: each mini-batch of the
    current experience is concatenated with a mini-batch of the buffer."""

    def __init__(self, data, memory, batch_size=32, batch_size_mem=32, shuffle=True,
                 drop_last=True, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.data_loader = DataLoader(data, batch_size=batch_size, shuffle=shuffle,
                                      drop_last=drop_last, generator=g)
        self.memory_loader = cycle(DataLoader(memory, batch_size=batch_size_mem,
                                              shuffle=shuffle, drop_last=True, generator=g))

    def __len__(self):
        return len(self.data_loader)

    def __iter__(self):
        for x, y, t, idx in self.data_loader:
            mx, my, mt, midx = next(self.memory_loader)
            yield (torch.cat([x, mx]), torch.cat([y, my]), t,
                   torch.cat([idx, torch.full_like(midx, -1)]))


class ReplayPlugin(SupervisedPlugin):
    """
    Experience replay plugin.

    Handles an external memory filled with randomly selected
    patterns and implementing `before_training_exp` and `after_training_exp`
    callbacks. Here the storage policy is a ParametricBuffer whose exemplars are
    chosen by herding-like closest-to-center selection on penultimate features.
    """

    def __init__(self, mem_size: int = 200, batch_size: Optional[int] = None,
                 batch_size_mem: Optional[int] = None,
                 storage_policy: Optional[ExemplarsBuffer] = None):
        super().__init__()
        self.mem_size = mem_size
        self.batch_size = batch_size
        self.batch_size_mem = batch_size_mem

        if storage_policy is not None:  # Use other storage policy
            self.storage_policy = storage_policy
            assert storage_policy.max_size == self.mem_size
        else:  # Default
            self.storage_policy = ParametricBuffer(
                max_size=self.mem_size,
                groupby="class",
                selection_strategy=ClosestToCenterSelectionStrategy(),
            )
        self._hook_handle = None
        self._last_features = None

    def before_training(self, strategy, **kwargs):
        if self._hook_handle is None:
            extractor = getattr(strategy.model, "features")

            # a plain closure (not a bound method): deepcopy(model) in LwF must not copy the plugin
            def _save_features_hook(module, inputs, output):
                self._last_features = output

            self._hook_handle = extractor.register_forward_hook(_save_features_hook)

    def before_training_exp(self, strategy, num_workers: int = 0, shuffle: bool = True, **kwargs):
        """
        Dataloader to build batches containing examples from both memories and
        the training dataset
        """
        self.storage_policy.selection_strategy.set_experience(
            strategy.clock.train_exp_counter,
            n_samples=len(strategy.experience.dataset),
            feature_dim=strategy.model.classifier.in_features,
        )
        if len(self.storage_policy.buffer) == 0:
            # first experience. We don't use the buffer, no need to change
            # the dataloader.
            return

        batch_size = self.batch_size or strategy.train_mb_size
        batch_size_mem = self.batch_size_mem or strategy.train_mb_size

        strategy.dataloader = ReplayDataLoader(
            strategy.experience.dataset,
            self.storage_policy.buffer,
            batch_size=batch_size,
            batch_size_mem=batch_size_mem,
            shuffle=shuffle,
            seed=strategy.clock.train_exp_counter,
        )

    def after_forward(self, strategy, **kwargs):
        if self._last_features is not None:
            self.storage_policy.selection_strategy.observe(strategy.mb_idx, self._last_features)

    def after_training_exp(self, strategy, **kwargs):
        self.storage_policy.update(strategy, **kwargs)

    def after_training(self, strategy, **kwargs):
        if self._hook_handle is not None:
            self._hook_handle.remove()
            self._hook_handle = None
            self._last_features = None
