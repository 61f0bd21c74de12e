# Source: https://github.com/shenweichen/DeepCTR-Torch/issues/69
# Shape: a CTR model's fit() first backwards an auxiliary interest-consistency loss on the user and item embedding lookups with retain_graph=True and then, in the same step, the click log-loss, whose backward goes through the same embedding lookups; the retain is needed and the second backward frees the graph before the next step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class WideDeepCTR(nn.Module):
    def __init__(self, field_dims=(50, 30, 20), emb_dim=8, hidden=64, aux_weight=0.1):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(n, emb_dim) for n in field_dims])
        self.linear = nn.ModuleList([nn.Embedding(n, 1) for n in field_dims])
        self.dnn = nn.Sequential(nn.Linear(emb_dim * len(field_dims), hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.aux_weight = aux_weight

    def forward(self, x):
        embs = [emb(x[:, i]) for i, emb in enumerate(self.embeddings)]
        wide = sum(lin(x[:, i]) for i, lin in enumerate(self.linear))
        return torch.sigmoid(wide + self.dnn(torch.cat(embs, dim=1))), embs

    def auxiliary_loss(self, embs, y):
        affinity = (embs[0] * embs[1]).sum(-1)
        return F.binary_cross_entropy_with_logits(affinity, y)

    def fit(self, train_loader, epochs=1, lr=1e-3, verbose=True):
        optim = torch.optim.Adam(self.parameters(), lr=lr)
        history = []
        for epoch in range(epochs):
            self.train()
            loss_epoch, aux_epoch = 0.0, 0.0
            for x, y in train_loader:
                y_pred, embs = self(x)
                optim.zero_grad()
                loss = F.binary_cross_entropy(y_pred.squeeze(-1), y, reduction="mean")
                aux_loss = self.aux_weight * self.auxiliary_loss(embs, y)
                aux_loss.backward(retain_graph=True)
                loss.backward()
                optim.step()
                loss_epoch += loss.item()
                aux_epoch += aux_loss.item()
            history.append((loss_epoch / len(train_loader), aux_epoch / len(train_loader)))
            if verbose:
                print("epoch %d loss %.4f aux %.4f" % (epoch + 1, *history[-1]))
        return history
