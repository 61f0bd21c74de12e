# Source: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/2
# Shape: inner-loop weight gradients are taken with create_graph=True (needed for the meta-gradient) but are also summed into a run-long importance buffer without detach, so each step's double-backward graph stays reachable.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_adj(adj):
    adj = adj + torch.eye(adj.shape[0])
    d = adj.sum(1).pow(-0.5)
    return d.unsqueeze(1) * adj * d.unsqueeze(0)


class MetaGCN(nn.Module):
    """Two-layer GCN whose weights can be swapped for fast weights."""

    def __init__(self, nfeat=8, nhid=12, nclass=3):
        super().__init__()
        self.w1 = nn.Parameter(torch.randn(nfeat, nhid) * 0.3)
        self.w2 = nn.Parameter(torch.randn(nhid, nclass) * 0.3)

    def forward(self, x, adj_norm, weights=None):
        w1, w2 = weights if weights is not None else (self.w1, self.w2)
        h = F.relu(adj_norm @ (x @ w1))
        return adj_norm @ (h @ w2)


class MetaTrainer:
    def __init__(self, model, inner_lr=0.1, inner_steps=2):
        self.model = model
        self.inner_lr, self.inner_steps = inner_lr, inner_steps
        self.meta_opt = torch.optim.Adam(model.parameters(), lr=5e-3)
        self.grad_importance = [torch.zeros_like(p) for p in model.parameters()]

    def inner_train(self, x, adj_norm, labels, idx_train):
        weights = list(self.model.parameters())
        for _ in range(self.inner_steps):
            out = self.model(x, adj_norm, weights)
            loss_labeled = F.cross_entropy(out[idx_train], labels[idx_train])
            weight_grads = torch.autograd.grad(loss_labeled, weights, create_graph=True)
            for i, g in enumerate(weight_grads):
                self.grad_importance[i] = self.grad_importance[i] + g.pow(2)  # TLK301
            weights = [w - self.inner_lr * g for w, g in zip(weights, weight_grads)]
        return weights

    def meta_step(self, task):
        x, adj, labels, idx_train, idx_val = task
        adj_norm = normalize_adj(adj)
        fast = self.inner_train(x, adj_norm, labels, idx_train)
        out = self.model(x, adj_norm, fast)
        meta_loss = F.cross_entropy(out[idx_val], labels[idx_val])
        self.meta_opt.zero_grad()
        meta_loss.backward()
        self.meta_opt.step()
        return meta_loss.item()


def make_batches(n, nodes=10, nfeat=8):
    out = []
    for _ in range(n):
        adj = (torch.rand(nodes, nodes) > 0.7).float()
        adj = ((adj + adj.t()) > 0).float()
        out.append((torch.randn(nodes, nfeat), adj, torch.randint(0, 3, (nodes,)),
                    torch.arange(0, 5), torch.arange(5, nodes)))
    return out


def run(batches):
    torch.manual_seed(0)
    trainer = MetaTrainer(MetaGCN())
    for task in batches:
        trainer.meta_step(task)
