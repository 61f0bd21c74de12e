# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/14270
# Shape: validate() still appends undetached loss tensors to the never-cleared self.val_losses and keeps best_val as a tensor, but they are computed under torch.no_grad(), so no graph is recorded and only small value tensors accumulate.
# Verdict: clean
import torch
import torch.nn as nn


class PoseRegressor(nn.Module):
    def __init__(self, in_dim=10, hidden=32, out_dim=6):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden), nn.BatchNorm1d(hidden), nn.ReLU(),
                                      nn.Dropout(0.1), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, out_dim)

    def forward(self, x):
        return self.head(self.backbone(x))


class PARETrainer:
    def __init__(self, model, val_batches, val_every=2, lr=1e-2):
        self.model = model
        self.val_batches = val_batches
        self.val_every = val_every
        self.criterion = nn.MSELoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.val_losses = []
        self.val_accuracy_results = []
        self.best_val = float("inf")
        self.best_step = -1

    def training_step(self, batch):
        x, y = batch
        loss = self.criterion(self.model(x), y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()

    def validate(self, step):
        self.model.eval()
        n = len(self.val_batches)
        for x, y in self.val_batches:
            with torch.no_grad():
                self.val_losses.append(self.criterion(self.model(x), y))
        val_loss = torch.stack(self.val_losses[-n:]).mean()
        pck = (torch.stack(self.val_losses[-n:]) < 0.5).float().mean()
        self.val_accuracy_results.append(pck)
        if val_loss < self.best_val:  # early stopping: keep the best checkpoint
            self.best_val = val_loss
            self.best_step = step
        self.model.train()
        return val_loss

    def fit(self, batches, probe=None):
        self.model.train()
        train_losses = []
        for step, batch in enumerate(batches):
            train_losses.append(self.training_step(batch))
            if (step + 1) % self.val_every == 0:
                self.validate(step)
            if probe is not None:
                probe(step)
        return train_losses


def _batches(g, n, w):
    out = []
    for _ in range(n):
        x = torch.randn(16, 10, generator=g)
        y = torch.tanh(x @ w)
        out.append((x, y))
    return out


def _true_weights():
    return torch.randn(10, 6, generator=torch.Generator().manual_seed(11)) * 0.5


def make_batches(n):
    return _batches(torch.Generator().manual_seed(5), n, _true_weights())


def run(batches, probe=None):
    torch.manual_seed(0)
    val_batches = _batches(torch.Generator().manual_seed(6), 3, _true_weights())
    trainer = PARETrainer(PoseRegressor(), val_batches, val_every=2)
    train_losses = trainer.fit(batches, probe=probe)
    return {"first_train_loss": train_losses[0], "last_train_loss": train_losses[-1],
            "best_val": float(trainer.best_val), "best_step": trainer.best_step}


if __name__ == "__main__":
    print(run(make_batches(5)))
