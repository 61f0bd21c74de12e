"""
Stand-in for image_datasets.load_data: an endless generator of (images, kwargs) batches.
Instead of reading image files it draws tiny synthetic "images" in [-1, 1] (blobs on a
gradient background), deterministically per batch index.
"""
import torch as th


def load_data(*, batch_size, image_size, class_cond=False, seed=0):
    ys, xs = th.meshgrid(th.linspace(-1, 1, image_size), th.linspace(-1, 1, image_size), indexing="ij")
    i = 0
    while True:
        g = th.Generator().manual_seed(seed * 7919 + i)
        cx, cy = (th.rand(2, batch_size, 1, 1, generator=g) * 2 - 1)
        r = 0.2 + 0.4 * th.rand(batch_size, 1, 1, generator=g)
        blob = ((xs - cx) ** 2 + (ys - cy) ** 2 < r ** 2).float()
        img = th.stack([blob * 2 - 1, (blob * xs).clamp(-1, 1), ys.expand_as(blob)], dim=1)
        out_dict = {}
        if class_cond:
            out_dict["y"] = th.randint(0, 2, (batch_size,), generator=g)
        i += 1
        yield img, out_dict
