"""
Deterministic synthetic image data (smooth blobs), yielded forever like the
``load_data`` generator of guided-diffusion.
"""

import torch as th


def _make_images(n, image_size, channels, generator):
    coords = th.linspace(-1.0, 1.0, image_size)
    yy, xx = th.meshgrid(coords, coords, indexing="ij")
    centers = th.rand(n, 2, generator=generator) * 1.2 - 0.6
    widths = th.rand(n, 1, 1, generator=generator) * 0.3 + 0.2
    blob = th.exp(
        -((xx[None] - centers[:, 0, None, None]) ** 2 + (yy[None] - centers[:, 1, None, None]) ** 2)
        / (2 * widths ** 2)
    )
    colours = th.rand(n, channels, 1, 1, generator=generator) * 2 - 1
    return (blob[:, None] * colours).clamp(-1, 1)


def load_data(*, batch_size, image_size, channels=3, class_cond=False, seed=0):
    generator = th.Generator().manual_seed(seed)
    while True:
        batch = _make_images(batch_size, image_size, channels, generator)
        out_dict = {}
        if class_cond:
            out_dict["y"] = th.randint(0, 2, (batch_size,), generator=generator)
        yield batch, out_dict
