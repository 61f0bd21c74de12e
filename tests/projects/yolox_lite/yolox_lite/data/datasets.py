# Synthetic stand-in for yolox/data/datasets/coco.py + mosaicdetection.py: coloured boxes on noise.
import torch
from torch.utils.data import Dataset


class SyntheticDetection(Dataset):
    """Images with up to `max_labels` axis-aligned boxes; labels are [cls, cx, cy, w, h] in pixels."""

    def __init__(self, num_images=64, img_size=(64, 64), num_classes=4, max_labels=6, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.img_size = img_size
        self.images = []
        self.labels = []
        h, w = img_size
        for _ in range(num_images):
            img = torch.rand(3, h, w, generator=g) * 0.2
            n = int(torch.randint(1, max_labels + 1, (1,), generator=g))
            lab = torch.zeros(max_labels, 5)
            for j in range(n):
                bw, bh = (torch.randint(8, 28, (2,), generator=g)).tolist()
                x0 = int(torch.randint(0, w - bw, (1,), generator=g))
                y0 = int(torch.randint(0, h - bh, (1,), generator=g))
                c = int(torch.randint(0, num_classes, (1,), generator=g))
                img[c % 3, y0:y0 + bh, x0:x0 + bw] += 0.8
                lab[j] = torch.tensor([c, x0 + bw / 2, y0 + bh / 2, bw, bh], dtype=torch.float)
            self.images.append(img)
            self.labels.append(lab)

    def __len__(self):
        return len(self.images)

    def __getitem__(self, index):
        return self.images[index], self.labels[index], self.img_size, index

    def close_mosaic(self):
        pass


def collate_fn(batch):
    imgs = torch.stack([b[0] for b in batch])
    targets = torch.stack([b[1] for b in batch])
    return imgs, targets, [b[2] for b in batch], [b[3] for b in batch]
