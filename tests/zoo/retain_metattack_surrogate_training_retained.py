# Source: https://github.com/ChandlerBang/pytorch-gnn-meta-attack/issues/1
# Shape: the graph attack first trains its linearised GCN surrogate with an ordinary loop whose backward passes retain_graph=True; as the maintainer confirmed, nothing differentiates that graph again, so every iteration's graph (the dense adjacency products included) survives into the next forward pass.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def normalize_adj(adj):
    adj = adj + torch.eye(adj.size(0))
    d_inv_sqrt = adj.sum(1).pow(-0.5)
    return d_inv_sqrt.unsqueeze(1) * adj * d_inv_sqrt.unsqueeze(0)


class SurrogateGCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass):
        super().__init__()
        self.w1 = nn.Parameter(torch.empty(nfeat, nhid))
        self.w2 = nn.Parameter(torch.empty(nhid, nclass))
        nn.init.xavier_uniform_(self.w1)
        nn.init.xavier_uniform_(self.w2)

    def forward(self, features, adj_norm):
        hidden = adj_norm @ features @ self.w1
        return F.log_softmax(adj_norm @ hidden @ self.w2, dim=1)


def train_surrogate(surrogate, features, adj, labels, idx_train, train_iters=100, lr=0.01):
    adj_norm = normalize_adj(adj)
    optimizer = torch.optim.Adam(surrogate.parameters(), lr=lr, weight_decay=5e-4)
    for i in range(train_iters):
        optimizer.zero_grad()
        output = surrogate(features, adj_norm)
        loss = F.nll_loss(output[idx_train], labels[idx_train])
        loss.backward(retain_graph=True)  # TLK201
        optimizer.step()
    with torch.no_grad():
        pseudo_labels = surrogate(features, adj_norm).argmax(1)
    return pseudo_labels


if __name__ == "__main__":
    n, nfeat = 60, 20
    adj = (torch.rand(n, n) > 0.9).float()
    adj = ((adj + adj.t()) > 0).float()
    train_surrogate(SurrogateGCN(nfeat, 16, 3), torch.randn(n, nfeat), adj, torch.randint(0, 3, (n,)), torch.arange(20), train_iters=5)
