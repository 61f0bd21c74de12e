import torch


def simclr_transform(strength=0.3):
    """Random flip + colour jitter + gaussian noise, on a CHW tensor."""

    def apply(img, g):
        if torch.rand(1, generator=g).item() < 0.5:
            img = img.flip(-1)
        jitter = 1.0 + strength * (torch.rand(3, 1, 1, generator=g) - 0.5)
        return (img * jitter + 0.05 * torch.randn(img.shape, generator=g)).clamp(0, 1)

    return apply


class ContrastiveLearningViewGenerator:
    """Take two random views of one image."""

    def __init__(self, base_transform, n_views=2):
        self.base_transform = base_transform
        self.n_views = n_views

    def __call__(self, x, g):
        return [self.base_transform(x, g) for _ in range(self.n_views)]


class SyntheticImages:
    """Batches of n_views lists of images, as the DataLoader of the original yields them."""

    def __init__(self, n_batches, batch_size, size=16, n_views=2, seed=0):
        self.n_batches, self.batch_size, self.size, self.seed = n_batches, batch_size, size, seed
        self.views = ContrastiveLearningViewGenerator(simclr_transform(), n_views)

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        for _ in range(self.n_batches):
            base = torch.rand(self.batch_size, 3, self.size, self.size, generator=g)
            views = [self.views(img, g) for img in base]
            images = [torch.stack([v[i] for v in views]) for i in range(self.views.n_views)]
            labels = torch.randint(0, 4, (self.batch_size,), generator=g)
            yield images, labels
