# Source: https://github.com/dmlc/dgl/issues/5302
# Shape: a GraphSAGE mini-batch epoch accumulates the loss on the device as total_loss += loss.detach() (no host sync per step) and returns the mean as a float; the running total carries no graph. The hidden features carried from layer to layer inside forward are one forward pass.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class SAGE(nn.Module):
    def __init__(self, in_feats, hidden, n_classes, conv_cls):
        super().__init__()
        self.layers = nn.ModuleList([conv_cls(in_feats, hidden, "mean"), conv_cls(hidden, hidden, "mean"),
                                     conv_cls(hidden, n_classes, "mean")])
        self.dropout = nn.Dropout(0.5)

    def forward(self, blocks, x):
        h = x
        for i, (layer, block) in enumerate(zip(self.layers, blocks)):
            h = layer(block, h)
            if i != len(self.layers) - 1:
                h = self.dropout(F.relu(h))
        return h


def train_epoch(model, dataloader, opt):
    model.train()
    total_loss = torch.zeros((), device="cuda")
    for it, (input_nodes, output_nodes, blocks) in enumerate(dataloader):
        x = blocks[0].srcdata["feat"]
        y = blocks[-1].dstdata["label"]
        y_hat = model(blocks, x)
        loss = F.cross_entropy(y_hat, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total_loss += loss.detach()
    return (total_loss / (it + 1)).item()


def fit(model, dataloader, epochs=10, lr=1e-3):
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=5e-4)
    for epoch in range(epochs):
        print(f"epoch {epoch:05d} | loss {train_epoch(model, dataloader, opt):.4f}")
