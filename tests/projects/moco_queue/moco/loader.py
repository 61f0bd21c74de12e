"""Two random views of each image (a noise-and-flip stand-in for the MoCo v2 augmentation)."""
import torch


class TwoCropsTransform:
    def __init__(self, noise=0.1):
        self.noise = noise

    def view(self, x):
        if torch.rand(()) < 0.5:
            x = x.flip(-1)
        return x + self.noise * torch.randn_like(x)

    def __call__(self, x):
        return [self.view(x), self.view(x)]


def make_loader(images, labels, batch_size, two_crops=True):
    transform = TwoCropsTransform()
    batches = []
    for start in range(0, len(images) - batch_size + 1, batch_size):
        x = images[start:start + batch_size]
        y = labels[start:start + batch_size]
        batches.append((transform(x) if two_crops else x, y))
    return batches
