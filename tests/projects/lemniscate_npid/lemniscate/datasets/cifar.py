import torch
import torch.utils.data as data


class CIFAR10Instance(data.Dataset):
    """CIFAR10Instance Dataset: returns (img, target, index) so that the instance index
    can address its row of the non-parametric memory.

    Stand-in for torchvision's CIFAR10: `num_images` tiny synthetic images of 10 classes
    (a class-specific colour pattern plus noise), with an optional random-flip transform.
    """

    def __init__(self, train=True, num_images=64, img_size=16, transform=None, seed=0):
        g = torch.Generator().manual_seed(seed if train else seed + 1)
        self.train = train
        self.transform = transform
        self.targets = torch.randint(0, 10, (num_images,), generator=g)
        base = torch.randn(10, 3, img_size, img_size, generator=g)
        self.data = base[self.targets] + 0.3 * torch.randn(num_images, 3, img_size, img_size, generator=g)
        self.train_labels = self.targets.tolist()

    def __len__(self):
        return len(self.targets)

    def __getitem__(self, index):
        img, target = self.data[index], int(self.targets[index])

        if self.transform is not None:
            img = self.transform(img)

        return img, target, index


class RandomHorizontalFlip(object):
    def __call__(self, img):
        if torch.rand(()) < 0.5:
            return img.flip(-1)
        return img
