""" Deterministic synthetic image loader (CPU) """
import torch


class SyntheticImageLoader:
    """Yields `num_batches` (input, target) pairs generated from a fixed seed.

    Batches are generated on the fly, nothing is cached, so memory does not
    depend on the number of batches.
    """
    def __init__(self, num_batches, batch_size=8, img_size=16, num_classes=10, seed=0):
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.img_size = img_size
        self.num_classes = num_classes
        self.seed = seed

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        for _ in range(self.num_batches):
            target = torch.randint(0, self.num_classes, (self.batch_size,), generator=g)
            input = torch.randn(self.batch_size, 3, self.img_size, self.img_size, generator=g)
            # make the task learnable: class-dependent offset on channel 0
            input[:, 0] += (target.float() / self.num_classes - 0.5).view(-1, 1, 1)
            yield input, target


def create_loader(num_batches, batch_size=8, img_size=16, num_classes=10, seed=0):
    return SyntheticImageLoader(num_batches, batch_size, img_size, num_classes, seed)
