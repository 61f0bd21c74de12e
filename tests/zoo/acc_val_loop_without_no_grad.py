# Source: https://github.com/chrischoy/FCGF/issues/15
# Shape: look-alike: the validation pass runs without torch.no_grad(), so each val batch builds a graph, but every statistic leaves as .item()/integer counts and the graph dies with the batch, so nothing accumulates across steps (only peak memory is higher).
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


N_CLASSES = 7


def make_batches(n, batch_size=32, in_dim=40):
    g = torch.Generator().manual_seed(0)
    return [(torch.randn(batch_size, in_dim, generator=g),
             torch.randint(0, N_CLASSES, (batch_size,), generator=g)) for _ in range(n)]


class Classifier(nn.Module):
    def __init__(self, in_dim=40, hidden=128, n_classes=N_CLASSES):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                      nn.Linear(hidden, hidden), nn.BatchNorm1d(hidden), nn.ReLU())
        self.classifier = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x))


class Trainer:
    def __init__(self, model, lr=0.1, val_every=1):
        self.model = model
        self.optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
        self.val_every = val_every
        self.best_acc = 0.0
        self.log = []

    def _train_iter(self, x, y):
        self.model.train()
        self.optimizer.zero_grad()
        loss = F.cross_entropy(self.model(x), y)
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def _valid_epoch(self, val_batches):
        self.model.eval()
        total_loss, correct, count = 0.0, 0, 0
        conf_mat = torch.zeros(N_CLASSES, N_CLASSES, dtype=torch.long)
        for x, y in val_batches:
            out = self.model(x)
            loss = F.cross_entropy(out, y)
            pred = out.argmax(dim=1)
            total_loss += loss.item() * x.size(0)
            correct += (pred == y).sum().item()
            count += x.size(0)
            conf_mat.index_put_((y, pred), torch.ones_like(y), accumulate=True)
        return {"loss": total_loss / count, "acc": correct / count, "conf_mat": conf_mat}

    def train(self, train_batches, val_batches):
        for step, (x, y) in enumerate(train_batches, start=1):
            train_loss = self._train_iter(x, y)
            if step % self.val_every == 0:
                stats = self._valid_epoch(val_batches)
                self.best_acc = max(self.best_acc, stats["acc"])
                self.log.append({"step": step, "train_loss": train_loss,
                                 "val_loss": stats["loss"], "val_acc": stats["acc"]})
        return self.log


def run(steps):
    trainer = Trainer(Classifier())
    trainer.train(make_batches(steps), make_batches(3))
    return trainer


if __name__ == "__main__":
    t = run(20)
    print(t.log[-1], t.best_acc)
