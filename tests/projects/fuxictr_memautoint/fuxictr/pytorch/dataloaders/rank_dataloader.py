import logging

import torch


class SyntheticCTRBlocks(object):
    """Deterministic click logs: each field value has a hidden effect on the click logit."""

    def __init__(self, feature_map, num_batches, batch_size, seed):
        self.feature_map = feature_map
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.seed = seed
        gen = torch.Generator().manual_seed(1234)  # ground truth shared by all splits
        self.effects = {
            name: torch.randn(spec["vocab_size"], generator=gen)
            for name, spec in feature_map.features.items()
        }

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        gen = torch.Generator().manual_seed(self.seed)
        label = self.feature_map.labels[0]
        for _ in range(self.num_batches):
            batch = {}
            logit = torch.full((self.batch_size,), -0.5)
            for name, spec in self.feature_map.features.items():
                ids = torch.randint(0, spec["vocab_size"], (self.batch_size,), generator=gen)
                batch[name] = ids
                logit = logit + 0.7 * self.effects[name][ids]
            batch[label] = torch.bernoulli(torch.sigmoid(logit), generator=gen)
            yield batch


class RankDataLoader(object):
    def __init__(self, feature_map, stage="both", train_data=None, valid_data=None, test_data=None,
                 batch_size=64, shuffle=True, train_batches=10, valid_batches=2, seed=2019, **kwargs):
        logging.info("Loading datasets...")
        self.stage = stage
        self.train_gen = SyntheticCTRBlocks(feature_map, train_batches, batch_size, seed)
        self.valid_gen = SyntheticCTRBlocks(feature_map, valid_batches, batch_size, seed + 1)
        self.test_gen = None

    def make_iterator(self):
        if self.stage == "train":
            return self.train_gen, self.valid_gen
        elif self.stage == "test":
            return self.test_gen
        return self.train_gen, self.valid_gen
