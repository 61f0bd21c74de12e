# Source: https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795
# Shape: forward() carries self.hidden from one training_step to the next without detaching, and manual_backward(loss, retain_graph=True) silences the "backward through the graph a second time" error, so every step backpropagates through, and keeps alive, the whole history.
# Verdict: leak
import torch
import torch.nn as nn


class LightningModule(nn.Module):
    """Tiny stand-in for pytorch_lightning.LightningModule (manual optimization API)."""

    automatic_optimization = True

    def __init__(self):
        super().__init__()
        self._optimizers = None
        self.logged = {}

    def optimizers(self):
        return self._optimizers

    def manual_backward(self, loss, *args, **kwargs):
        loss.backward(*args, **kwargs)

    def log(self, name, value, prog_bar=False):
        self.logged[name] = value


class Trainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs

    def fit(self, module, train_dataloader, probe=None):
        module._optimizers = module.configure_optimizers()
        module.train()
        for _ in range(self.max_epochs):
            for batch_idx, batch in enumerate(train_dataloader):
                module.training_step(batch, batch_idx)
                if probe is not None:
                    probe(batch_idx)
        return module.logged


class LeakyRNNForecaster(LightningModule):
    """One recurrent step per time index; the hidden state is updated in forward."""

    def __init__(self, input_size=4, hidden_size=32, leak_rate=0.3, lr=1e-2):
        super().__init__()
        self.automatic_optimization = False
        self.leak_rate = leak_rate
        self.lr = lr
        self.w_in = nn.Linear(input_size, hidden_size)
        g = torch.Generator().manual_seed(0)
        w_rec = torch.randn(hidden_size, hidden_size, generator=g)
        self.register_buffer("w_rec", 0.9 * w_rec / torch.linalg.matrix_norm(w_rec, ord=2))
        self.readout = nn.Linear(hidden_size, 1)
        self.hidden = torch.zeros(1, hidden_size)
        self.loss = nn.MSELoss()

    def forward(self, x):
        pre = self.w_in(x) + self.hidden @ self.w_rec
        self.hidden = (1 - self.leak_rate) * self.hidden + self.leak_rate * torch.tanh(pre)
        return self.readout(self.hidden)

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        prediction = torch.cat([self(x[t:t + 1]) for t in range(x.size(0))])
        loss = self.loss(prediction, y)
        opt.zero_grad()
        self.manual_backward(loss, retain_graph=True)  # TLK202
        opt.step()
        self.log("train_loss", loss.item(), prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def make_batches(n, chunk=8):
    g = torch.Generator().manual_seed(4)
    t = torch.arange(n * chunk + 1, dtype=torch.float32)
    series = torch.sin(0.3 * t) + 0.05 * torch.randn(t.shape, generator=g)
    feats = torch.stack([series, torch.sin(0.15 * t), torch.cos(0.15 * t), torch.ones_like(t)], dim=1)
    batches = []
    for i in range(n):
        s = slice(i * chunk, (i + 1) * chunk)
        batches.append((feats[s], series[i * chunk + 1:(i + 1) * chunk + 1].unsqueeze(1)))
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    model = LeakyRNNForecaster()
    losses = []
    trainer = Trainer(max_epochs=1)

    def _record(i):
        losses.append(model.logged["train_loss"])
        if probe is not None:
            probe(i)

    trainer.fit(model, batches, probe=_record)
    return {"first_loss": losses[0], "last_loss": losses[-1]}


if __name__ == "__main__":
    print(run(make_batches(5)))
