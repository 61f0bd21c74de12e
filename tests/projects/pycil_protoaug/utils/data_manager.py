import logging
import numpy as np
import torch
from torch.utils.data import Dataset


class iSynthetic8(object):
    """Eight Gaussian classes in a 32-d input space (stands in for iCIFAR)."""
    use_path = False
    class_order = np.arange(8).tolist()

    def __init__(self, dim=32, n_train=160, n_test=40):
        self.dim, self.n_train, self.n_test = dim, n_train, n_test

    def download_data(self):
        rng = np.random.RandomState(7)
        means = rng.randn(len(self.class_order), self.dim).astype(np.float32) * 1.5
        xs, ys, xt, yt = [], [], [], []
        for c in self.class_order:
            xs.append(means[c] + rng.randn(self.n_train, self.dim).astype(np.float32))
            ys.append(np.full(self.n_train, c))
            xt.append(means[c] + rng.randn(self.n_test, self.dim).astype(np.float32))
            yt.append(np.full(self.n_test, c))
        self.train_data, self.train_targets = np.concatenate(xs), np.concatenate(ys)
        self.test_data, self.test_targets = np.concatenate(xt), np.concatenate(yt)


def _get_idata(dataset_name):
    name = dataset_name.lower()
    if name == 'synthetic8':
        return iSynthetic8()
    else:
        raise NotImplementedError('Unknown dataset {}.'.format(dataset_name))


def _map_new_class_index(y, order):
    return np.array(list(map(lambda x: order.index(x), y)))


class DataManager(object):
    def __init__(self, dataset_name, shuffle, seed, init_cls, increment):
        self.dataset_name = dataset_name
        self._setup_data(dataset_name, shuffle, seed)
        assert init_cls <= len(self._class_order), 'No enough classes.'
        self._increments = [init_cls]
        while sum(self._increments) + increment < len(self._class_order):
            self._increments.append(increment)
        offset = len(self._class_order) - sum(self._increments)
        if offset > 0:
            self._increments.append(offset)

    @property
    def nb_tasks(self):
        return len(self._increments)

    def get_task_size(self, task):
        return self._increments[task]

    def get_dataset(self, indices, source, mode, appendent=None, ret_data=False):
        if source == 'train':
            x, y = self._train_data, self._train_targets
        elif source == 'test':
            x, y = self._test_data, self._test_targets
        else:
            raise ValueError('Unknown data source {}.'.format(source))

        data, targets = [], []
        for idx in indices:
            class_data, class_targets = self._select(x, y, low_range=idx, high_range=idx + 1)
            data.append(class_data)
            targets.append(class_targets)

        if appendent is not None and len(appendent) != 0:
            appendent_data, appendent_targets = appendent
            data.append(appendent_data)
            targets.append(appendent_targets)

        data, targets = np.concatenate(data), np.concatenate(targets)

        if ret_data:
            return data, targets, DummyDataset(data, targets, noise=(mode == 'train'))
        else:
            return DummyDataset(data, targets, noise=(mode == 'train'))

    def _setup_data(self, dataset_name, shuffle, seed):
        idata = _get_idata(dataset_name)
        idata.download_data()

        # Data
        self._train_data, self._train_targets = idata.train_data, idata.train_targets
        self._test_data, self._test_targets = idata.test_data, idata.test_targets

        # Order
        order = [i for i in range(len(np.unique(self._train_targets)))]
        if shuffle:
            np.random.seed(seed)
            order = np.random.permutation(len(order)).tolist()
        else:
            order = idata.class_order
        self._class_order = order
        logging.info(self._class_order)

        # Map indices
        self._train_targets = _map_new_class_index(self._train_targets, self._class_order)
        self._test_targets = _map_new_class_index(self._test_targets, self._class_order)

    def _select(self, x, y, low_range, high_range):
        idxes = np.where(np.logical_and(y >= low_range, y < high_range))[0]
        return x[idxes], y[idxes]


class DummyDataset(Dataset):
    def __init__(self, data, labels, noise=False):
        assert len(data) == len(labels), 'Data size error!'
        self.data = data
        self.labels = labels
        self.noise = noise

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        x = torch.from_numpy(self.data[idx])
        if self.noise:
            # deterministic per-sample jitter (the "train transform")
            g = torch.Generator().manual_seed(int(idx))
            x = x + 0.1 * torch.randn(x.shape, generator=g)
        return idx, x, int(self.labels[idx])
