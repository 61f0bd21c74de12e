import math

import torch
from torch.utils.data import Dataset

from utils.tools import StandardScaler
from utils.timefeatures import time_features


def synthetic_ett(n_points, n_vars=7, seed=17):
    """ETTh1-like table: six load series (HUFL, HULL, MUFL, MULL, LUFL, LULL) and the oil temperature OT."""
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(n_points, dtype=torch.float32)
    daily = torch.sin(2 * math.pi * t / 24)
    weekly = torch.sin(2 * math.pi * t / (24 * 7))
    cols = []
    for k in range(n_vars - 1):
        phase = 0.3 * k
        trend = 0.002 * (k + 1) * t
        noise = 0.1 * torch.randn(n_points, generator=g)
        cols.append(2.0 * torch.sin(2 * math.pi * t / 24 + phase) + 0.5 * weekly + trend + noise)
    loads = torch.stack(cols, dim=1)
    ot = 0.4 * loads.mean(1) + 0.8 * daily + 0.05 * torch.randn(n_points, generator=g)
    return torch.cat([loads, ot[:, None]], dim=1)


class Dataset_ETT_hour(Dataset):
    def __init__(self, root_path=None, flag='train', size=None,
                 features='M', data_path='ETTh1.csv',
                 target='OT', scale=True, inverse=False, timeenc=0, freq='h', cols=None, n_points=640):
        # size [seq_len, label_len, pred_len]
        if size is None:
            self.seq_len = 24 * 4 * 4
            self.label_len = 24 * 4
            self.pred_len = 24 * 4
        else:
            self.seq_len = size[0]
            self.label_len = size[1]
            self.pred_len = size[2]
        assert flag in ['train', 'test', 'val']
        type_map = {'train': 0, 'val': 1, 'test': 2}
        self.set_type = type_map[flag]

        self.features = features
        self.target = target
        self.scale = scale
        self.inverse = inverse
        self.timeenc = timeenc
        self.freq = freq
        self.n_points = n_points

        self.root_path = root_path
        self.data_path = data_path
        self.__read_data__()

    def __read_data__(self):
        self.scaler = StandardScaler()
        df_raw = synthetic_ett(self.n_points)

        num_train = int(self.n_points * 0.7)
        num_test = int(self.n_points * 0.2)
        num_vali = self.n_points - num_train - num_test
        border1s = [0, num_train - self.seq_len, self.n_points - num_test - self.seq_len]
        border2s = [num_train, num_train + num_vali, self.n_points]
        border1 = border1s[self.set_type]
        border2 = border2s[self.set_type]

        if self.features == 'M' or self.features == 'MS':
            df_data = df_raw
        elif self.features == 'S':
            df_data = df_raw[:, -1:]

        if self.scale:
            train_data = df_data[border1s[0]:border2s[0]]
            self.scaler.fit(train_data)
            data = self.scaler.transform(df_data)
        else:
            data = df_data

        stamps = torch.arange(border1, border2)
        self.data_stamp = time_features(stamps, timeenc=self.timeenc, freq=self.freq)
        self.data_x = data[border1:border2]
        if self.inverse:
            self.data_y = df_data[border1:border2]
        else:
            self.data_y = data[border1:border2]

    def __getitem__(self, index):
        s_begin = index
        s_end = s_begin + self.seq_len
        r_begin = s_end - self.label_len
        r_end = r_begin + self.label_len + self.pred_len

        seq_x = self.data_x[s_begin:s_end]
        seq_y = self.data_y[r_begin:r_end]
        seq_x_mark = self.data_stamp[s_begin:s_end]
        seq_y_mark = self.data_stamp[r_begin:r_end]

        return seq_x, seq_y, seq_x_mark, seq_y_mark

    def __len__(self):
        return len(self.data_x) - self.seq_len - self.pred_len + 1

    def inverse_transform(self, data):
        return self.scaler.inverse_transform(data)
