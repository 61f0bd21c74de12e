"""Deterministic, infinite stream of synthetic single-object images (dataset dicts)."""
import torch


class SyntheticDetectionStream:
    def __init__(self, batch_size=8, size=16, num_classes=5, seed=0):
        self.batch_size = batch_size
        self.size = size
        self.num_classes = num_classes
        self.seed = seed

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        s = self.size
        while True:
            batch = []
            for _ in range(self.batch_size):
                cls = int(torch.randint(0, self.num_classes, (1,), generator=g))
                x0, y0 = torch.randint(0, s // 2, (2,), generator=g).tolist()
                w, h = torch.randint(3, s // 2, (2,), generator=g).tolist()
                img = 0.1 * torch.randn(3, s, s, generator=g)
                img[cls % 3, y0:y0 + h, x0:x0 + w] += 1.0 + cls / self.num_classes
                box = torch.tensor([x0, y0, x0 + w, y0 + h], dtype=torch.float32) / s
                batch.append({"image": img, "gt_class": cls, "gt_box": box})
            yield batch


def build_detection_train_loader(cfg):
    return SyntheticDetectionStream(batch_size=cfg.SOLVER.IMS_PER_BATCH, size=cfg.INPUT.SIZE,
                                    num_classes=cfg.MODEL.NUM_CLASSES, seed=cfg.SEED)
