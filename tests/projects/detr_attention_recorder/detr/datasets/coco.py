# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
"""
COCO-style dataset which returns image_id for evaluation.

Stand-in for datasets/coco.py: instead of reading COCO json + jpgs, it renders a few
axis-aligned coloured rectangles per image and returns DETR-style targets
(labels, normalized cxcywh boxes, image_id, orig_size, size).
"""
import torch


class SyntheticCocoDetection(torch.utils.data.Dataset):
    def __init__(self, num_images, img_size, num_classes, max_objects=3, seed=0):
        self.num_images = num_images
        self.img_size = img_size
        self.num_classes = num_classes
        self.max_objects = max_objects
        self.seed = seed

    def __len__(self):
        return self.num_images

    def __getitem__(self, idx):
        img_size = self.img_size
        g = torch.Generator().manual_seed(self.seed * 100003 + idx)
        img = torch.rand(3, img_size, img_size, generator=g) * 0.1
        n = int(torch.randint(1, self.max_objects + 1, (1,), generator=g))
        labels = torch.randint(0, self.num_classes, (n,), generator=g)
        xy0 = torch.rand(n, 2, generator=g) * 0.6
        wh = 0.15 + torch.rand(n, 2, generator=g) * 0.25
        xy1 = (xy0 + wh).clamp(max=1.0)
        for (x0, y0), (x1, y1), c in zip(xy0.tolist(), xy1.tolist(), labels.tolist()):
            a, b = int(y0 * img_size), int(y1 * img_size)
            l, r = int(x0 * img_size), int(x1 * img_size)
            img[c % 3, a:b, l:r] += 0.5 + 0.1 * c
        boxes = torch.cat([(xy0 + xy1) / 2, xy1 - xy0], dim=1)
        target = {'boxes': boxes, 'labels': labels, 'image_id': torch.tensor([idx]),
                  'orig_size': torch.tensor([img_size, img_size]),
                  'size': torch.tensor([img_size, img_size])}
        return img, target


def build(image_set, args):
    n = args.num_train_images if image_set == 'train' else args.num_val_images
    return SyntheticCocoDetection(n, args.img_size, args.num_classes,
                                  seed=0 if image_set == 'train' else 1)
