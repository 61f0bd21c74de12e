import numpy as np
import torch as th


def load_data(*, data_dir, batch_size, image_size, class_cond=False, deterministic=False,
              num_classes=10, seed=0):
    """
    For a dataset, create a generator over (images, kwargs) pairs.

    This port has no image files: `data_dir` is ignored and the images are
    smooth deterministic patterns in [-1, 1] (one pattern per class).

    :param batch_size: the batch size of each returned pair.
    :param image_size: the size to which images are resized.
    :param class_cond: if True, include a "y" key in returned dicts for class
                       label. If classes are not available and this is true, an
                       exception will be raised.
    """
    rng = np.random.RandomState(seed)
    coords = np.linspace(-1.0, 1.0, image_size, dtype=np.float32)
    yy, xx = np.meshgrid(coords, coords, indexing="ij")
    while True:
        labels = rng.randint(0, num_classes, size=(batch_size,))
        phase = rng.uniform(0, 2 * np.pi, size=(batch_size, 1, 1, 1)).astype(np.float32)
        freq = (1.0 + labels).reshape(batch_size, 1, 1, 1).astype(np.float32)
        chans = np.arange(3, dtype=np.float32).reshape(1, 3, 1, 1)
        arr = np.sin(freq * xx[None, None] + phase + chans) * np.cos(freq * yy[None, None])
        out_dict = {}
        if class_cond:
            out_dict["y"] = th.from_numpy(labels.astype(np.int64))
        yield th.from_numpy(arr.astype(np.float32)), out_dict
