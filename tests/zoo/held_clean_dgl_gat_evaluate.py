# Source: https://github.com/dmlc/dgl/issues/637
# Shape: full-graph GAT training in the DGL example style: train loss/accuracy are logged with .item(), evaluation runs under torch.no_grad(), and only the best validation accuracy (a float) is carried across epochs.
# Verdict: clean
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

N_NODES = 80
IN_FEATS = 16
N_CLASSES = 4


class GATConv(nn.Module):
    def __init__(self, in_feats, out_feats, num_heads, feat_drop=0.0, attn_drop=0.0, negative_slope=0.2):
        super().__init__()
        self.num_heads, self.out_feats = num_heads, out_feats
        self.fc = nn.Linear(in_feats, out_feats * num_heads, bias=False)
        self.attn_l = nn.Parameter(torch.randn(1, num_heads, out_feats) * 0.1)
        self.attn_r = nn.Parameter(torch.randn(1, num_heads, out_feats) * 0.1)
        self.feat_drop, self.attn_drop = nn.Dropout(feat_drop), nn.Dropout(attn_drop)
        self.leaky_relu = nn.LeakyReLU(negative_slope)

    def forward(self, adj, feat):
        h = self.fc(self.feat_drop(feat)).view(-1, self.num_heads, self.out_feats)
        el = (h * self.attn_l).sum(-1)
        er = (h * self.attn_r).sum(-1)
        e = self.leaky_relu(el.unsqueeze(1) + er.unsqueeze(0))          # (N, N, H)
        e = e.masked_fill(~adj.unsqueeze(-1), float("-inf"))
        a = self.attn_drop(torch.softmax(e, dim=1))
        return torch.einsum("ijh,jhf->ihf", a, h)


class GAT(nn.Module):
    def __init__(self, num_hidden=8, heads=(4, 1)):
        super().__init__()
        self.layer1 = GATConv(IN_FEATS, num_hidden, heads[0], 0.6, 0.6)
        self.layer2 = GATConv(num_hidden * heads[0], N_CLASSES, heads[1], 0.6, 0.6)

    def forward(self, g, features):
        h = F.elu(self.layer1(g, features)).flatten(1)
        return self.layer2(g, h).mean(1)


def accuracy(logits, labels):
    _, indices = torch.max(logits, dim=1)
    correct = torch.sum(indices == labels)
    return correct.item() * 1.0 / len(labels)


def evaluate(model, g, features, labels, mask):
    model.eval()
    with torch.no_grad():
        logits = model(g, features)
        logits = logits[mask]
        labels = labels[mask]
        return accuracy(logits, labels)


def make_batches(n):
    return list(range(n))  # one entry per epoch (full-graph training)


def run(batches):
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(31)
    features = torch.randn(N_NODES, IN_FEATS, generator=gen)
    labels = torch.randint(0, N_CLASSES, (N_NODES,), generator=gen)
    adj = (torch.rand(N_NODES, N_NODES, generator=gen) < 0.08) | torch.eye(N_NODES, dtype=torch.bool)
    train_mask = torch.arange(N_NODES) < 40
    val_mask = ~train_mask

    model = GAT()
    loss_fcn = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=0.005, weight_decay=5e-4)
    dur, best_val_acc = 0.0, 0.0
    for epoch in batches:
        model.train()
        t0 = time.time()
        logits = model(adj, features)
        loss = loss_fcn(logits[train_mask], labels[train_mask])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        dur += time.time() - t0
        train_acc = accuracy(logits[train_mask], labels[train_mask])
        val_acc = evaluate(model, adj, features, labels, val_mask)
        if val_acc > best_val_acc:
            best_val_acc = val_acc
        print("Epoch {:05d} | Loss {:.4f} | TrainAcc {:.4f} | ValAcc {:.4f}".format(
            epoch, loss.item(), train_acc, val_acc)) if epoch % 1000 == 0 and epoch > 0 else None
    return best_val_acc
