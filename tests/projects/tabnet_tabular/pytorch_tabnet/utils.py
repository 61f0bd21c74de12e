import torch
from torch.utils.data import DataLoader, Dataset


class TorchDataset(Dataset):
    """
    Format for numpy array

    Parameters
    ----------
    X : 2D array
        The input matrix
    y : 2D array
        The one-hot encoded target
    """

    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        x, y = self.x[index], self.y[index]
        return x, y


class PredictDataset(Dataset):
    def __init__(self, x):
        self.x = x

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index]


def create_dataloaders(X_train, y_train, eval_set, weights, batch_size, num_workers,
                       drop_last, pin_memory):
    """
    Create dataloaders with or without subsampling depending on weights and balanced.
    """
    generator = torch.Generator().manual_seed(0)
    train_dataloader = DataLoader(
        TorchDataset(X_train.float(), y_train),
        batch_size=batch_size,
        shuffle=True,
        num_workers=num_workers,
        drop_last=drop_last,
        pin_memory=pin_memory,
        generator=generator,
    )

    valid_dataloaders = []
    for X, y in eval_set:
        valid_dataloaders.append(
            DataLoader(
                TorchDataset(X.float(), y),
                batch_size=batch_size,
                shuffle=False,
                num_workers=num_workers,
                pin_memory=pin_memory,
            )
        )

    return train_dataloader, valid_dataloaders


def validate_eval_set(eval_set, eval_name, X_train, y_train):
    """Check if the shapes of eval_set are compatible with (X_train, y_train)."""
    eval_name = eval_name or [f"val_{i}" for i in range(len(eval_set))]

    assert len(eval_set) == len(
        eval_name
    ), "eval_set and eval_name have not the same length"
    for set_nb, (X, y) in enumerate(eval_set):
        msg = f"Number of columns is different between X_{eval_name[set_nb]} and X_train"
        assert X.shape[1] == X_train.shape[1], msg
    return eval_name, eval_set


def create_group_matrix(list_groups, input_dim):
    """Create the group matrix corresponding to the given list_groups (no groups: identity)."""
    if len(list_groups) == 0:
        return torch.eye(input_dim)
    n_groups = input_dim - sum(len(g) - 1 for g in list_groups)
    group_matrix = torch.zeros((n_groups, input_dim))
    remaining = list(range(input_dim))
    for gid, group in enumerate(list_groups):
        for f in group:
            group_matrix[gid, f] = 1 / len(group)
            remaining.remove(f)
    for i, f in enumerate(remaining):
        group_matrix[len(list_groups) + i, f] = 1
    return group_matrix


def define_device(device_name):
    if device_name == "auto":
        return "cuda" if torch.cuda.is_available() else "cpu"
    return device_name


def check_input(X):
    if not torch.is_tensor(X):
        raise TypeError("X_train must be a tensor in this port")
    if torch.isnan(X).any():
        raise ValueError("NaN in input")
