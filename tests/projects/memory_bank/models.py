# Layout modelled on HobbitLong/CMC (github.com/HobbitLong/CMC): the memory bank module lives in
# its own file and the training script only constructs and calls it. Here the bank is written
# from the attached features in forward (the original does it under torch.no_grad()).
import torch
import torch.nn as nn


class MemoryBank(nn.Module):
    def __init__(self, size: int, dim: int) -> None:
        super().__init__()
        self.register_buffer("bank", torch.zeros(size, dim))

    def forward(self, feats, index):
        scores = feats @ self.bank.t()
        self.bank[index] = feats
        return scores


class SafeMemoryBank(nn.Module):
    def __init__(self, size: int, dim: int) -> None:
        super().__init__()
        self.register_buffer("bank", torch.zeros(size, dim))

    def forward(self, feats, index):
        scores = feats @ self.bank.t()
        with torch.no_grad():
            self.bank[index] = feats
        return scores
