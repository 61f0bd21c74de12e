# Source: https://github.com/DeepRank/deeprank/issues/210
# Shape: Fixed twin: eval() runs under torch.no_grad() and sums loss.item(), so each epoch's validation loss is a float; `running_loss += loss.data.item()` in the training epoch was already fine and is unchanged, as are the per-batch accuracy tensors (argmax has no grad).
# Verdict: clean
"""graphprot / DeepRank-GNN style NeuralNet wrapper: interface graphs pooled to a vector,
classification with softmax output, train/eval/epoch loop and loss curves."""
from time import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphBatch:
    """Minimal stand-in for a torch_geometric batch: node features + graph index + label."""

    def __init__(self, x, batch, y):
        self.x, self.batch, self.y = x, batch, y

    def to(self, device):
        return GraphBatch(self.x.to(device), self.batch.to(device), self.y.to(device))


class GINetLike(nn.Module):
    def __init__(self, input_shape, output_shape=2):
        super().__init__()
        self.conv1 = nn.Linear(input_shape, 32)
        self.conv2 = nn.Linear(32, 32)
        self.fc1 = nn.Linear(32, 64)
        self.fc2 = nn.Linear(64, output_shape)

    def forward(self, data):
        x = F.relu(self.conv1(data.x))
        x = F.relu(self.conv2(x))
        n_graphs = int(data.batch.max()) + 1
        pooled = torch.zeros(n_graphs, x.size(1)).index_add(0, data.batch, x)
        pooled = pooled / torch.bincount(data.batch, minlength=n_graphs).unsqueeze(1)
        return self.fc2(F.relu(self.fc1(pooled)))


def make_batches(n_batches, graphs_per_batch=8, nodes_per_graph=12, n_feat=10, seed=0):
    gen = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n_batches):
        y = torch.randint(0, 2, (graphs_per_batch,), generator=gen)
        x = torch.randn(graphs_per_batch * nodes_per_graph, n_feat, generator=gen)
        x[:, 0] += y.repeat_interleave(nodes_per_graph).float()
        batch = torch.arange(graphs_per_batch).repeat_interleave(nodes_per_graph)
        batches.append(GraphBatch(x, batch, y.float()))
    return batches


class NeuralNet(object):
    def __init__(self, Net, train_loader, valid_loader, task="class", classes=(0, 1)):
        self.train_loader = train_loader
        self.valid_loader = valid_loader
        self.device = torch.device("cpu")
        self.task = task
        self.classes = list(classes)
        self.classes_idx = {i: idx for idx, i in enumerate(self.classes)}
        self.output_shape = len(self.classes)
        self.model = Net(train_loader[0].x.shape[1], self.output_shape).to(self.device)
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=0.01)
        self.loss = nn.CrossEntropyLoss(reduction="mean")
        self.train_loss, self.valid_loss = [], []

    def train(self, nepoch=1, validate=False):
        self.model.train()
        _train_acc, _train_loss, _valid_acc, _valid_loss = [], [], [], []
        for epoch in range(1, nepoch + 1):
            t0 = time()
            acc, loss = self._epoch(epoch)
            _train_loss.append(loss)
            _train_acc.append(acc)
            if validate:
                _, val_acc, val_loss = self.eval(self.valid_loader)
                _valid_loss.append(val_loss)
                _valid_acc.append(val_acc)
                self.model.train()
        self.train_loss, self.valid_loss = _train_loss, _valid_loss
        return _train_acc, _valid_acc

    def Accuracy(self, prediction, target, reduce=True):
        overlap = (prediction.argmax(dim=1) == target).sum()
        if reduce:
            return overlap / float(target.size()[-1])
        return overlap

    def format_output(self, out, acc, target):
        if self.task == "class":
            out = F.softmax(out, dim=1)
            target = torch.tensor([self.classes_idx[int(x)] for x in target])
            acc.append(self.Accuracy(out, target))
        else:
            out = out.reshape(-1)
            acc = None
        return out, acc, target

    def eval(self, loader):
        self.model.eval()
        loss_func, loss_val = self.loss, 0
        out = []
        acc = []
        with torch.no_grad():
            for data in loader:
                data = data.to(self.device)
                pred = self.model(data)
                pred, acc, data.y = self.format_output(pred, acc, data.y)
                loss_val += loss_func(pred, data.y).item()
                out += pred.reshape(-1).tolist()
        if self.task == "class":
            return out, torch.mean(torch.stack(acc)), loss_val
        return out, acc, loss_val

    def _epoch(self, epoch):
        running_loss = 0
        acc = []
        for data in self.train_loader:
            data = data.to(self.device)
            self.optimizer.zero_grad()
            out = self.model(data)
            out, acc, data.y = self.format_output(out, acc, data.y)
            loss = self.loss(out, data.y)
            running_loss += loss.data.item()
            loss.backward()
            self.optimizer.step()
        if self.task == "class":
            return torch.mean(torch.stack(acc)), running_loss
        return acc, running_loss


def run(steps):
    torch.manual_seed(0)
    net = NeuralNet(GINetLike, make_batches(3), make_batches(4, seed=1))
    net.train(nepoch=steps, validate=True)
    return net


if __name__ == "__main__":
    run(10)
