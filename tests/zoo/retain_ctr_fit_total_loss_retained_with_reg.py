# Source: https://github.com/shenweichen/DeepCTR-Torch/issues/69
# Shape: a CTR model's fit() adds the embedding regulariser to the log-loss and backwards the total with retain_graph=True, a leftover from when the regulariser was a tensor computed once and reused; it is now recomputed from the weights every step and nothing backwards the graph again, so each step's retained graph stays alive into the next step's forward.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class WideDeepCTR(nn.Module):
    def __init__(self, field_dims=(50, 30, 20), emb_dim=8, hidden=64, l2_reg_embedding=1e-5):
        super().__init__()
        self.embeddings = nn.ModuleList([nn.Embedding(n, emb_dim) for n in field_dims])
        self.linear = nn.ModuleList([nn.Embedding(n, 1) for n in field_dims])
        self.dnn = nn.Sequential(nn.Linear(emb_dim * len(field_dims), hidden), nn.ReLU(), nn.Linear(hidden, 1))
        self.l2_reg_embedding = l2_reg_embedding

    def forward(self, x):
        embs = [emb(x[:, i]) for i, emb in enumerate(self.embeddings)]
        wide = sum(lin(x[:, i]) for i, lin in enumerate(self.linear))
        return torch.sigmoid(wide + self.dnn(torch.cat(embs, dim=1)))

    def get_regularization_loss(self):
        reg = torch.zeros(())
        for emb in self.embeddings:
            reg = reg + self.l2_reg_embedding * torch.sum(emb.weight ** 2)
        return reg

    def fit(self, train_loader, epochs=1, lr=1e-3, verbose=True):
        optim = torch.optim.Adam(self.parameters(), lr=lr)
        history = []
        for epoch in range(epochs):
            self.train()
            loss_epoch, total_loss_epoch = 0.0, 0.0
            for x, y in train_loader:
                y_pred = self(x).squeeze(-1)
                optim.zero_grad()
                loss = F.binary_cross_entropy(y_pred, y, reduction="sum")
                reg_loss = self.get_regularization_loss()
                total_loss = loss + reg_loss
                loss_epoch += loss.item()
                total_loss_epoch += total_loss.item()
                total_loss.backward(retain_graph=True)  # TLK201
                optim.step()
            history.append(total_loss_epoch / len(train_loader))
            if verbose:
                print("epoch %d loss %.4f" % (epoch + 1, loss_epoch / len(train_loader)))
        return history
