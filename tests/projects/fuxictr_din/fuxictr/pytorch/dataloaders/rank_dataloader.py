import logging

import torch


class SyntheticBlockDataLoader(object):
    """Yields dict batches {feature: tensor} like FuxiCTR's NpzDataLoader, from a
    deterministic synthetic click log (user / item / category + click history)."""

    def __init__(self, feature_map, num_batches, batch_size=128, seq_len=10, seed=2024):
        self.feature_map = feature_map
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.seq_len = seq_len
        self.seed = seed

    def make_block(self, index):
        g = torch.Generator().manual_seed(self.seed * 100003 + index)
        f = self.feature_map.features
        batch_size, seq_len = self.batch_size, self.seq_len
        item = torch.randint(1, f["item_id"]["vocab_size"], (batch_size,), generator=g)
        cate = item % (f["cate_id"]["vocab_size"] - 1) + 1
        hist = torch.randint(1, f["item_id"]["vocab_size"], (batch_size, seq_len), generator=g)
        lens = torch.randint(1, seq_len + 1, (batch_size,), generator=g)
        pad = torch.arange(seq_len).unsqueeze(0) >= lens.unsqueeze(1)
        hist = hist.masked_fill(pad, 0)
        cate_hist = (hist % (f["cate_id"]["vocab_size"] - 1) + 1).masked_fill(pad, 0)
        user = torch.randint(1, f["user_id"]["vocab_size"], (batch_size,), generator=g)
        overlap = (cate_hist == cate.unsqueeze(1)).float().sum(1)
        label = (torch.rand(batch_size, generator=g) < torch.sigmoid(overlap - 0.5)).float()
        return {"user_id": user, "item_id": item, "cate_id": cate,
                "click_history": hist, "cate_history": cate_hist, "label": label}

    def __iter__(self):
        for index in range(self.num_batches):
            yield self.make_block(index)

    def __len__(self):
        return self.num_batches


class RankDataLoader(object):
    def __init__(self, feature_map, stage="both", train_batches=10, valid_batches=2, batch_size=128,
                 **kwargs):
        logging.info("Loading datasets...")
        self.stage = stage
        self.train_gen = SyntheticBlockDataLoader(feature_map, train_batches, batch_size, seed=1)
        self.valid_gen = SyntheticBlockDataLoader(feature_map, valid_batches, batch_size, seed=2)

    def make_iterator(self):
        if self.stage == "train":
            return self.train_gen, self.valid_gen
        return self.train_gen, self.valid_gen
