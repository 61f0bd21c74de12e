from abc import ABC, abstractmethod
from typing import Dict, List, Optional

import torch
import torch.nn.functional as F

from avalanche.benchmarks.classic import ClassificationDataset


class ExemplarsBuffer(ABC):
    """ABC for rehearsal buffers to store exemplars.

    `self.buffer` is a ClassificationDataset of samples collected from the
    previous experiences. The buffer can be updated by calling
    `self.update(strategy)`.
    """

    def __init__(self, max_size: int):
        self.max_size = max_size
        self.buffer = ClassificationDataset(torch.zeros(0), torch.zeros(0, dtype=torch.long))

    @abstractmethod
    def update(self, strategy, **kwargs):
        ...

    @abstractmethod
    def resize(self, strategy, new_size: int):
        ...


class ExemplarsSelectionStrategy(ABC):
    """
    Base class to define how to select a subset of exemplars from a dataset.
    """

    @abstractmethod
    def make_sorted_indices(self, strategy, data) -> List[int]:
        """
        Should return the sorted list of indices to keep as exemplars.
        The last indices will be the first to be removed when cutoff memory.
        """


class FeatureBasedExemplarsSelectionStrategy(ExemplarsSelectionStrategy, ABC):
    """Base class to select exemplars from their features.

    Instead of an extra forward pass over the experience at the end of training
    (as upstream does in make_sorted_indices), the features of each training
    sample are recorded while the experience is trained, through a forward hook on
    the feature extractor (see ReplayPlugin.after_forward).
    """

    def __init__(self, feature_extractor_name: str = "features"):
        self.feature_extractor_name = feature_extractor_name
        # one (n_samples, feature_dim) bank per experience, filled while training
        self.feature_banks: Dict[int, torch.Tensor] = {}
        self.seen_masks: Dict[int, torch.Tensor] = {}
        self._exp = 0

    def set_experience(self, exp_id: int, n_samples: int = 0, feature_dim: int = 0):
        self._exp = exp_id
        if n_samples and exp_id not in self.feature_banks:
            self.feature_banks[exp_id] = torch.zeros(n_samples, feature_dim)
            self.seen_masks[exp_id] = torch.zeros(n_samples, dtype=torch.bool)

    def observe(self, sample_idxs: torch.Tensor, features: torch.Tensor):
        """Record the penultimate features of the samples of the current mini-batch."""
        keep = sample_idxs >= 0  # replayed samples carry idx -1
        sample_idxs, features = sample_idxs[keep], features[keep]
        # iCaRL-style: exemplars are selected on L2-normalised features
        features = F.normalize(features, p=2, dim=1)
        self.feature_banks[self._exp][sample_idxs] = features  # known-miss: TLK102
        self.seen_masks[self._exp][sample_idxs] = True

    @torch.no_grad()
    def make_sorted_indices(self, strategy, data) -> List[int]:
        bank = self.feature_banks[self._exp]
        missing = (~self.seen_masks[self._exp]).nonzero().flatten()
        if len(missing):  # samples never seen during training: one forward for them
            feats = F.normalize(strategy.model.get_features(data.x[missing].to(strategy.device)), p=2, dim=1)
            bank = bank.clone()
            bank[missing] = feats
        return self.make_sorted_indices_from_features(bank)

    @abstractmethod
    def make_sorted_indices_from_features(self, features: torch.Tensor) -> List[int]:
        ...


class ClosestToCenterSelectionStrategy(FeatureBasedExemplarsSelectionStrategy):
    """A greedy algorithm that selects the remaining exemplar that is the
    closest to the center of all elements (in feature space).
    """

    def make_sorted_indices_from_features(self, features: torch.Tensor) -> List[int]:
        mean = torch.mean(features, dim=0)
        distances = torch.pow(features - mean, 2).sum(dim=1)
        return distances.argsort().tolist()


class ParametricBuffer(ExemplarsBuffer):
    """Stores samples for replay using a custom selection strategy and
    grouping (here: grouped by class)."""

    def __init__(self, max_size: int, groupby: Optional[str] = "class",
                 selection_strategy: Optional[ExemplarsSelectionStrategy] = None):
        super().__init__(max_size)
        assert groupby == "class"
        self.groupby = groupby
        self.selection_strategy = selection_strategy or ClosestToCenterSelectionStrategy()
        self.seen_groups = set()
        self.buffer_groups: Dict[int, ClassificationDataset] = {}

    def update(self, strategy, **kwargs):
        new_data = strategy.experience.dataset
        order = self.selection_strategy.make_sorted_indices(strategy, new_data)
        new_classes = sorted(set(new_data.targets.tolist()))
        self.seen_groups.update(new_classes)
        group_size = self.max_size // len(self.seen_groups)
        for c in new_classes:
            c_idx = [i for i in order if int(new_data.targets[i]) == c][:group_size]
            self.buffer_groups[c] = new_data.subset(c_idx)
        for c in list(self.buffer_groups):
            self.resize_group(c, group_size)
        xs = torch.cat([g.x for g in self.buffer_groups.values()])
        ys = torch.cat([g.targets for g in self.buffer_groups.values()])
        self.buffer = ClassificationDataset(xs, ys)

    def resize_group(self, c, new_size):
        g = self.buffer_groups[c]
        if len(g) > new_size:
            self.buffer_groups[c] = g.subset(list(range(new_size)))

    def resize(self, strategy, new_size):
        self.max_size = new_size
        group_size = self.max_size // max(1, len(self.seen_groups))
        for c in list(self.buffer_groups):
            self.resize_group(c, group_size)
