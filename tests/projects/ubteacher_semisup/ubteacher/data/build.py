# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
"""Synthetic, deterministic stand-in for build_detection_semisup_train_loader_two_crops."""
import torch


def _make_instances(gen, num_anchors, num_classes):
    gt_classes = torch.full((num_anchors,), num_classes, dtype=torch.long)
    fg = torch.rand(num_anchors, generator=gen) < 0.25
    gt_classes[fg] = torch.randint(0, num_classes, (int(fg.sum()),), generator=gen)
    gt_boxes = torch.randn(num_anchors, 4, generator=gen) * 0.1
    return {"gt_classes": gt_classes, "gt_boxes": gt_boxes, "num_classes": num_classes}


def _strong_aug(image, gen):
    # colour jitter + cutout, the 'q' crop
    jitter = 1.0 + 0.2 * (torch.rand(3, 1, 1, generator=gen) - 0.5)
    out = image * jitter
    y, x = torch.randint(0, image.shape[-1] - 8, (2,), generator=gen).tolist()
    out[:, y:y + 8, x:x + 8] = 0.0
    return out


class TwoCropSemiSupLoader:
    """Yields (label_q, label_k, unlabel_q, unlabel_k) lists of dataset dicts, forever."""

    def __init__(self, cfg, seed=0):
        self.size = cfg.INPUT.SIZE
        self.num_classes = cfg.MODEL.ROI_HEADS.NUM_CLASSES
        self.num_anchors = (self.size // 4) ** 2
        self.bs_label = cfg.SOLVER.IMG_PER_BATCH_LABEL
        self.bs_unlabel = cfg.SOLVER.IMG_PER_BATCH_UNLABEL
        self.seed = seed

    def _dataset_dict(self, gen, with_label=True):
        image = torch.rand(3, self.size, self.size, generator=gen)
        weak = {"image": image, "height": self.size, "width": self.size}
        strong = {"image": _strong_aug(image, gen), "height": self.size, "width": self.size}
        if with_label:
            inst = _make_instances(gen, self.num_anchors, self.num_classes)
            weak["instances"] = inst
            strong["instances"] = inst
        return strong, weak

    def __iter__(self):
        gen = torch.Generator().manual_seed(self.seed)
        while True:
            label = [self._dataset_dict(gen) for _ in range(self.bs_label)]
            unlabel = [self._dataset_dict(gen) for _ in range(self.bs_unlabel)]
            yield ([q for q, _ in label], [k for _, k in label],
                   [q for q, _ in unlabel], [k for _, k in unlabel])


class ValLoader:
    def __init__(self, cfg, seed=1234):
        self._base = TwoCropSemiSupLoader(cfg, seed)
        self._n = cfg.TEST.VAL_BATCHES

    def __len__(self):
        return self._n

    def __iter__(self):
        it = iter(self._base)
        for _ in range(self._n):
            _, label_k, _, _ = next(it)
            yield label_k


def build_detection_semisup_train_loader_two_crops(cfg):
    return TwoCropSemiSupLoader(cfg, seed=cfg.SEED)


def build_detection_test_loader(cfg):
    return ValLoader(cfg)
