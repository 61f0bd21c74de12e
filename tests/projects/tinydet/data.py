"""Synthetic stand-in for the COCO detection dataset + the image samplers.

Every image contains a single axis-aligned rectangle whose colour channel
encodes its class, so a detector can actually learn something in a few
iterations on CPU.
"""
import random

import torch
from torch.utils.data import Dataset, Sampler


class Compose:
    def __init__(self, transforms):
        self.transforms = transforms

    def __call__(self, image, target):
        for t in self.transforms:
            image, target = t(image, target)
        return image, target


class RandomHorizontalFlip:
    def __init__(self, prob=0.5):
        self.prob = prob

    def __call__(self, image, target):
        if random.random() < self.prob:
            width = image.shape[-1]
            image = image.flip(-1)
            boxes = target["boxes"].clone()
            boxes[:, [0, 2]] = width - target["boxes"][:, [2, 0]]
            target["boxes"] = boxes
        return image, target


class Normalize:
    def __init__(self, mean, std):
        self.mean = torch.tensor(mean).view(-1, 1, 1)
        self.std = torch.tensor(std).view(-1, 1, 1)

    def __call__(self, image, target):
        return (image - self.mean) / self.std, target


def get_transform(train):
    transforms = []
    if train:
        transforms.append(RandomHorizontalFlip(0.5))
    transforms.append(Normalize([0.15, 0.15, 0.15], [0.3, 0.3, 0.3]))
    return Compose(transforms)


class SyntheticShapes(Dataset):
    def __init__(self, num_images=1024, image_size=32, num_classes=4, seed=0, transforms=None):
        g = torch.Generator().manual_seed(seed)
        self.image_size = image_size
        self.num_classes = num_classes
        self.transforms = transforms
        self.seed = seed
        self.annotations = []
        for _ in range(num_images):
            w, h = torch.randint(8, 17, (2,), generator=g).tolist()
            x0 = torch.randint(0, image_size - w + 1, (1,), generator=g).item()
            y0 = torch.randint(0, image_size - h + 1, (1,), generator=g).item()
            label = torch.randint(1, num_classes, (1,), generator=g).item()
            self.annotations.append((x0, y0, x0 + w, y0 + h, label))

    def __len__(self):
        return len(self.annotations)

    def __getitem__(self, idx):
        x0, y0, x1, y1, label = self.annotations[idx]
        g = torch.Generator().manual_seed(self.seed * 100003 + idx)
        img = torch.rand(3, self.image_size, self.image_size, generator=g) * 0.1
        img[label - 1, y0:y1, x0:x1] += 0.9
        target = {
            "boxes": torch.tensor([[x0, y0, x1, y1]], dtype=torch.float32),
            "labels": torch.tensor([label], dtype=torch.int64),
            "image_id": torch.tensor(idx),
            "area": torch.tensor([(x1 - x0) * (y1 - y0)], dtype=torch.float32),
            "iscrowd": torch.zeros(1, dtype=torch.int64),
        }
        if self.transforms is not None:
            img, target = self.transforms(img, target)
        return img, target


class HardExampleBatchSampler(Sampler):
    """Image-level online hard example mining.

    Keeps the most recent training loss of every image and draws the next
    epoch's batches with probability softmax(loss / T).  Images that were not
    seen yet get the mean score so that they are still sampled.
    """

    def __init__(self, num_images, batch_size, iters_per_epoch, temperature=2.0, seed=0):
        self.num_images = num_images
        self.batch_size = batch_size
        self.iters_per_epoch = iters_per_epoch
        self.temperature = temperature
        self.generator = torch.Generator().manual_seed(seed)
        self.scores = {}

    def update(self, image_ids, losses):
        for image_id, loss in zip(image_ids, losses):
            self.scores[int(image_id)] = loss  # known-miss: TLK102

    def _weights(self):
        weights = torch.ones(self.num_images)
        if self.scores:
            seen = [float(v) for v in self.scores.values()]
            weights.fill_(sum(seen) / len(seen))
            for image_id, score in self.scores.items():
                weights[image_id] = float(score)
        return torch.softmax(weights / self.temperature, dim=0)

    def __iter__(self):
        weights = self._weights()
        for _ in range(self.iters_per_epoch):
            batch = torch.multinomial(weights, self.batch_size, replacement=False, generator=self.generator)
            yield batch.tolist()

    def __len__(self):
        return self.iters_per_epoch
