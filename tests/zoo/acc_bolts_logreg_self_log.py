# Source: https://github.com/Lightning-Universe/lightning-bolts/issues/793
# Shape: training_step logs the graph-attached regularised loss with on_epoch=True; the (stand-in) result collection sums logged values into an epoch mean with tensor arithmetic, so every step's graph is chained until epoch end.
# Verdict: leak
import torch
from torch import nn
from torch.nn import functional as F


class _MeanMetric:
    """Epoch aggregation used by the logger (weighted mean)."""

    def __init__(self):
        self.value = 0.0
        self.cumulated_batch_size = 0

    def update(self, value, batch_size):
        self.value = self.value + value * batch_size
        self.cumulated_batch_size += batch_size

    def compute(self):
        return self.value / max(self.cumulated_batch_size, 1)


class LightningModule(nn.Module):
    """Tiny stand-in for pytorch_lightning.LightningModule (same user-facing API)."""

    def __init__(self):
        super().__init__()
        self.hparams = {}
        self._step_metrics = {}
        self._epoch_metrics = {}

    def save_hyperparameters(self, **kwargs):
        self.hparams.update(kwargs)

    def log(self, name, value, on_step=True, on_epoch=False, prog_bar=False, batch_size=1):
        if on_step:
            self._step_metrics[name] = value
        if on_epoch:
            self._epoch_metrics.setdefault(name, _MeanMetric()).update(value, batch_size)

    def manual_backward(self, loss, **kwargs):
        loss.backward(**kwargs)


class Trainer:
    """Tiny stand-in for pytorch_lightning.Trainer with automatic optimization."""

    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs
        self.logged_metrics = {}

    def fit(self, module, train_dataloader, val_dataloader=None, probe=None):
        optimizer = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            for batch_idx, batch in enumerate(train_dataloader):
                loss = module.training_step(batch, batch_idx)
                optimizer.zero_grad()
                module.manual_backward(loss)
                optimizer.step()
                if probe is not None:
                    probe(batch_idx)
            if val_dataloader is not None:
                module.eval()
                with torch.no_grad():
                    for batch_idx, batch in enumerate(val_dataloader):
                        module.validation_step(batch, batch_idx)
            self.logged_metrics = {k: float(m.compute()) for k, m in module._epoch_metrics.items()}
            module._epoch_metrics = {}
        return self.logged_metrics


class LogisticRegression(LightningModule):
    def __init__(self, input_dim, num_classes, bias=True, learning_rate=1e-4,
                 l1_strength=0.0, l2_strength=0.0):
        super().__init__()
        self.save_hyperparameters(input_dim=input_dim, num_classes=num_classes,
                                  learning_rate=learning_rate, l1_strength=l1_strength,
                                  l2_strength=l2_strength)
        self.linear = nn.Linear(in_features=input_dim, out_features=num_classes, bias=bias)

    def forward(self, x):
        return self.linear(x)

    def training_step(self, batch, batch_idx):
        x, y = batch
        x = x.view(x.size(0), -1)
        y_hat = self(x)
        loss = F.cross_entropy(y_hat, y)

        # L1 regularizer
        if self.hparams["l1_strength"] > 0:
            l1_reg = self.linear.weight.abs().sum()
            loss += self.hparams["l1_strength"] * l1_reg

        # L2 regularizer
        if self.hparams["l2_strength"] > 0:
            l2_reg = self.linear.weight.pow(2).sum()
            loss += self.hparams["l2_strength"] * l2_reg

        self.log("train_ce_loss", loss, on_step=True, on_epoch=True, prog_bar=True, batch_size=x.size(0))  # TLK101
        return loss

    def validation_step(self, batch, batch_idx):
        x, y = batch
        x = x.view(x.size(0), -1)
        y_hat = self(x)
        acc = (y_hat.argmax(dim=1) == y).float().mean()
        self.log("val_loss", F.cross_entropy(y_hat, y), on_step=False, on_epoch=True, batch_size=x.size(0))
        self.log("val_acc", acc, on_step=False, on_epoch=True, batch_size=x.size(0))

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams["learning_rate"])


def _iris_like(g, n):
    centers = torch.tensor([[5.0, 3.4, 1.5, 0.2], [5.9, 2.8, 4.3, 1.3], [6.6, 3.0, 5.6, 2.0]])
    out = []
    for _ in range(n):
        y = torch.randint(0, 3, (12,), generator=g)
        x = centers[y] + 0.3 * torch.randn(12, 4, generator=g)
        out.append((x, y))
    return out


def make_batches(n):
    return _iris_like(torch.Generator().manual_seed(1234), n)


def run(batches, probe=None):
    torch.manual_seed(1234)
    model = LogisticRegression(input_dim=4, num_classes=3, l1_strength=0.01, learning_rate=0.05)
    trainer = Trainer(max_epochs=1)
    val = _iris_like(torch.Generator().manual_seed(99), 2)
    return trainer.fit(model, batches, val, probe=probe)


if __name__ == "__main__":
    print(run(make_batches(5)))
