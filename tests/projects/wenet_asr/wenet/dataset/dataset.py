"""Synthetic stand-in for wenet/dataset: yields padded batch dicts like
wenet.dataset.processor.padding() does (keys, feats, target, lengths)."""
import torch

from wenet.utils.common import IGNORE_ID


class FakeAsrDataset(torch.utils.data.IterableDataset):
    """Random fbank-like features with random token targets."""

    def __init__(self, num_batches, batch_size=4, feat_dim=16, max_frames=24,
                 vocab_size=20, max_tokens=6, seed=777):
        super().__init__()
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.feat_dim = feat_dim
        self.max_frames = max_frames
        self.vocab_size = vocab_size
        self.max_tokens = max_tokens
        self.seed = seed

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        for i in range(self.num_batches):
            yield self._make_batch(g, i)

    def _make_batch(self, g, idx):
        B = self.batch_size
        feats_lengths = torch.randint(self.max_frames // 2,
                                      self.max_frames + 1, (B, ),
                                      generator=g)
        feats_lengths[0] = self.max_frames
        feats = torch.randn(B, self.max_frames, self.feat_dim, generator=g)
        target_lengths = torch.randint(2, self.max_tokens + 1, (B, ),
                                       generator=g)
        target = torch.full((B, self.max_tokens), IGNORE_ID, dtype=torch.long)
        for b in range(B):
            n = int(target_lengths[b])
            # 0 is <blank>, vocab_size - 1 is <sos/eos>
            target[b, :n] = torch.randint(1, self.vocab_size - 1, (n, ),
                                          generator=g)
        return {
            "keys": ["utt{}_{}".format(idx, b) for b in range(B)],
            "feats": feats,
            "feats_lengths": feats_lengths,
            "target": target,
            "target_lengths": target_lengths,
        }


def init_dataset_and_dataloader(configs, num_train_batches, num_cv_batches):
    conf = configs['dataset_conf']
    train_dataset = FakeAsrDataset(num_train_batches, seed=777, **conf)
    cv_dataset = FakeAsrDataset(num_cv_batches, seed=778, **conf)
    train_data_loader = torch.utils.data.DataLoader(train_dataset,
                                                    batch_size=None,
                                                    num_workers=0)
    cv_data_loader = torch.utils.data.DataLoader(cv_dataset,
                                                 batch_size=None,
                                                 num_workers=0)
    return train_dataset, cv_dataset, train_data_loader, cv_data_loader
