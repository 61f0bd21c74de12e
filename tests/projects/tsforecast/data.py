import math

import torch
from torch.utils.data import DataLoader, Dataset

from tools import StandardScaler


def time_features(index, freq="h"):
    """HourOfDay, DayOfWeek, DayOfMonth, DayOfYear encoded in [-0.5, 0.5]."""
    t = index.float()
    hour = (t % 24) / 23.0 - 0.5
    day = torch.div(t, 24, rounding_mode="floor")
    dow = (day % 7) / 6.0 - 0.5
    dom = (day % 30) / 29.0 - 0.5
    doy = (day % 365) / 364.0 - 0.5
    return torch.stack([hour, dow, dom, doy], dim=1)


def synthetic_series(length, n_vars, seed=2021):
    g = torch.Generator().manual_seed(seed)
    t = torch.arange(length).float()
    cols = []
    for c in range(n_vars):
        daily = torch.sin(2 * math.pi * t / 24.0 * (1 + 0.3 * c) + c)
        weekly = 0.5 * torch.sin(2 * math.pi * t / 168.0)
        trend = 0.002 * (c + 1) * t
        noise = 0.1 * torch.randn(length, generator=g)
        cols.append(daily + weekly + trend + noise)
    return torch.stack(cols, dim=1)


class Dataset_Custom(Dataset):
    def __init__(self, args, root_path=None, flag="train", size=None, features="M", data_path=None,
                 target="OT", scale=True, timeenc=1, freq="h", seasonal_patterns=None):
        if size is None:
            self.seq_len = 96
            self.label_len = 48
            self.pred_len = 96
        else:
            self.seq_len, self.label_len, self.pred_len = size
        assert flag in ["train", "test", "val"]
        type_map = {"train": 0, "val": 1, "test": 2}
        self.set_type = type_map[flag]
        self.args = args
        self.features = features
        self.target = target
        self.scale = scale
        self.timeenc = timeenc
        self.freq = freq
        self.__read_data__()

    def __read_data__(self):
        self.scaler = StandardScaler()
        raw = synthetic_series(self.args.series_len, self.args.enc_in)

        num_train = int(len(raw) * 0.7)
        num_test = int(len(raw) * 0.2)
        num_vali = len(raw) - num_train - num_test
        border1s = [0, num_train - self.seq_len, len(raw) - num_test - self.seq_len]
        border2s = [num_train, num_train + num_vali, len(raw)]
        border1 = border1s[self.set_type]
        border2 = border2s[self.set_type]

        if self.features == "M" or self.features == "MS":
            df_data = raw
        else:
            df_data = raw[:, -1:]

        if self.scale:
            train_data = df_data[border1s[0]:border2s[0]]
            self.scaler.fit(train_data)
            data = self.scaler.transform(df_data)
        else:
            data = df_data

        self.data_x = data[border1:border2]
        self.data_y = data[border1:border2]
        self.data_stamp = time_features(torch.arange(border1, border2), freq=self.freq)

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


data_dict = {
    "custom": Dataset_Custom,
    "synthetic": Dataset_Custom,
}


def data_provider(args, flag):
    Data = data_dict[args.data]
    timeenc = 0 if args.embed != "timeF" else 1

    if flag == "test":
        shuffle_flag = False
    elif flag == "train":
        # consecutive windows must stay in order when the model keeps state across batches
        shuffle_flag = not args.stateful
    else:
        shuffle_flag = True
    drop_last = False
    batch_size = args.batch_size
    freq = args.freq

    data_set = Data(
        args=args,
        root_path=args.root_path,
        data_path=args.data_path,
        flag=flag,
        size=[args.seq_len, args.label_len, args.pred_len],
        features=args.features,
        target=args.target,
        timeenc=timeenc,
        freq=freq,
        seasonal_patterns=args.seasonal_patterns,
    )
    print(flag, len(data_set))
    data_loader = DataLoader(
        data_set,
        batch_size=batch_size,
        shuffle=shuffle_flag,
        num_workers=args.num_workers,
        drop_last=drop_last,
    )
    return data_set, data_loader
