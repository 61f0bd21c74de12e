# Source: https://github.com/benedekrozemberczki/SimGNN/issues/41
# Shape: a SimGNN trainer sums the similarity losses of every graph pair in a batch and backwards the sum with retain_graph=True although nothing differentiates that graph again; fit() runs the batches inline, so each batch's retained graph (saved activations included) stays alive until `losses` is rebound in the next batch, one extra graph at every forward pass.
# Verdict: leak
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class SimGNN(nn.Module):
    def __init__(self, n_labels=8, filters=32, bins=16):
        super().__init__()
        self.conv1 = nn.Linear(n_labels, filters)
        self.conv2 = nn.Linear(filters, filters)
        self.attention = nn.Linear(filters, filters)
        self.tensor_network = nn.Bilinear(filters, filters, bins)
        self.scoring = nn.Sequential(nn.Linear(bins, 16), nn.ReLU(), nn.Linear(16, 1))

    def embed(self, adjacency, features):
        h = F.relu(self.conv1(adjacency @ features))
        h = F.relu(self.conv2(adjacency @ h))
        context = torch.tanh(self.attention(h.mean(0)))
        weights = torch.sigmoid(h @ context)
        return (weights.unsqueeze(1) * h).sum(0)

    def forward(self, data):
        e1 = self.embed(data["adj_1"], data["features_1"])
        e2 = self.embed(data["adj_2"], data["features_2"])
        return torch.sigmoid(self.scoring(F.relu(self.tensor_network(e1.unsqueeze(0), e2.unsqueeze(0))))).view(-1)


def random_pair(n_labels=8):
    n1, n2 = random.randint(5, 12), random.randint(5, 12)
    return {
        "adj_1": (torch.rand(n1, n1) > 0.7).float(), "features_1": torch.randn(n1, n_labels),
        "adj_2": (torch.rand(n2, n2) > 0.7).float(), "features_2": torch.randn(n2, n_labels),
        "target": torch.rand(1),
    }


class SimGNNTrainer:
    def __init__(self, model, training_graphs, batch_size=4, epochs=2, lr=1e-3):
        self.model, self.training_graphs = model, training_graphs
        self.batch_size, self.epochs = batch_size, epochs
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=5e-4)

    def create_batches(self):
        random.shuffle(self.training_graphs)
        return [self.training_graphs[i:i + self.batch_size] for i in range(0, len(self.training_graphs), self.batch_size)]

    def fit(self):
        self.model.train()
        for epoch in range(self.epochs):
            loss_sum, main_index = 0, 0
            for batch in self.create_batches():
                self.optimizer.zero_grad()
                losses = 0
                for data in batch:
                    prediction = self.model(data)
                    losses = losses + F.mse_loss(data["target"], prediction)
                losses.backward(retain_graph=True)  # TLK201
                self.optimizer.step()
                main_index += len(batch)
                loss_sum += losses.item() * len(batch)
            print("Epoch %d (Loss=%g)" % (epoch, round(loss_sum / main_index, 5)))


if __name__ == "__main__":
    SimGNNTrainer(SimGNN(), [random_pair() for _ in range(12)]).fit()
