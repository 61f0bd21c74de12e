# Source: https://github.com/nimarb/pytorch_influence_functions/blob/master/pytorch_influence_functions/calc_influence_function.py
# Shape: calc_grad_z detaches each per-sample create_graph gradient before caching it, so the list holds plain gradient tensors and every sample's graph is freed.
# Verdict: clean
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import grad

N_IN, N_HIDDEN, N_CLASSES = 16, 128, 10
SEQ = 256  # each sample is a sequence of 256 frames


class SmallNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(N_IN, N_HIDDEN)
        self.fc2 = nn.Linear(N_HIDDEN, N_CLASSES)

    def forward(self, x):
        # x: (batch, SEQ, N_IN) -> frame-wise features, mean-pooled over time
        h = torch.tanh(self.fc1(x))
        return self.fc2(h.mean(dim=1))


class TensorDatasetLite:
    def __init__(self, xs, ts):
        self.xs, self.ts = xs, ts

    def __len__(self):
        return len(self.xs)

    def __getitem__(self, i):
        return self.xs[i], self.ts[i]


class Loader:
    """Just enough of a DataLoader: .dataset and .collate_fn."""

    def __init__(self, dataset):
        self.dataset = dataset

    @staticmethod
    def collate_fn(items):
        return torch.stack([torch.as_tensor(i) for i in items])


def make_batches(n):
    g = torch.Generator().manual_seed(5)
    proto = torch.randn(N_CLASSES, N_IN, generator=g)
    ts = torch.randint(N_CLASSES, (n,), generator=g)
    xs = proto[ts][:, None, :] + 0.3 * torch.randn(n, SEQ, N_IN, generator=g)
    return Loader(TensorDatasetLite(list(xs), list(ts)))


def calc_loss(y, t):
    y = F.log_softmax(y, dim=1)
    return F.nll_loss(y, t, reduction="mean")


def grad_z(z, t, model):
    model.eval()
    loss = calc_loss(model(z), t)
    return list(grad(loss, list(model.parameters()), create_graph=True))


def display_progress(text, current, total):
    if current == total - 1:
        print(f"{text} {total}/{total}")


def calc_grad_z(model, train_loader, save_pth=False, start=0):
    if save_pth and isinstance(save_pth, str):
        save_pth = Path(save_pth)
    grad_zs = []
    for i in range(start, len(train_loader.dataset)):
        z, t = train_loader.dataset[i]
        z = train_loader.collate_fn([z])
        t = train_loader.collate_fn([t])
        grad_z_vec = grad_z(z, t, model)
        if save_pth:
            grad_z_vec = [g.cpu() for g in grad_z_vec]
            torch.save(grad_z_vec, save_pth.joinpath(f"{i}.grad_z"))
        else:
            grad_zs.append([g.detach() for g in grad_z_vec])
        display_progress("Calc. grad_z: ", i - start, len(train_loader.dataset) - start)
    return grad_zs, save_pth


def calc_influence_function(train_dataset_size, grad_z_vecs, e_s_test):
    influences = []
    for i in range(train_dataset_size):
        tmp_influence = -sum(
            [torch.sum(k * j).data.cpu().item() for k, j in zip(grad_z_vecs[i], e_s_test)]
        ) / train_dataset_size
        influences.append(tmp_influence)
    harmful = sorted(range(len(influences)), key=influences.__getitem__)
    return influences, harmful, harmful[::-1]


def pretrain(model, loader, lr=0.1, epochs=2):
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    xs = torch.stack(loader.dataset.xs)
    ts = torch.stack(loader.dataset.ts)
    for _ in range(epochs):
        opt.zero_grad()
        calc_loss(model(xs), ts).backward()
        opt.step()


def run(steps):
    torch.manual_seed(0)
    model = SmallNet()
    loader = make_batches(steps)
    pretrain(model, loader)
    grad_zs, _ = calc_grad_z(model, loader, save_pth=False)
    test_grad = [g.detach() for g in grad_z(loader.dataset.xs[0][None], loader.dataset.ts[0][None], model)]
    influences, harmful, helpful = calc_influence_function(len(grad_zs), grad_zs, test_grad)
    return model, grad_zs, influences


if __name__ == "__main__":
    run(8)
