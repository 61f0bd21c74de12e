# Modelled on provider.py of yanx27/Pointnet_Pointnet2_pytorch (random_point_dropout,
# random_scale_point_cloud, shift_point_cloud), on torch tensors instead of numpy arrays.
import torch


def random_point_dropout(batch_pc, max_dropout_ratio=0.875):
    for b in range(batch_pc.shape[0]):
        dropout_ratio = torch.rand(1).item() * max_dropout_ratio
        drop_idx = torch.nonzero(torch.rand(batch_pc.shape[1]) <= dropout_ratio).flatten()
        if len(drop_idx) > 0:
            batch_pc[b, drop_idx, :] = batch_pc[b, 0, :].clone()
    return batch_pc


def random_scale_point_cloud(batch_data, scale_low=0.8, scale_high=1.25):
    scales = torch.empty(batch_data.shape[0]).uniform_(scale_low, scale_high)
    return batch_data * scales[:, None, None]


def shift_point_cloud(batch_data, shift_range=0.1):
    shifts = torch.empty(batch_data.shape[0], 3).uniform_(-shift_range, shift_range)
    return batch_data + shifts[:, None, :]
