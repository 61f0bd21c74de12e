# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/1510
# Shape: the fix appends loss.item() (a Python float) to self.training_step_outputs, so the per-epoch list no longer pins each step's graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModuleStub(nn.Module):
    """The few LightningModule hooks this example relies on."""

    def __init__(self):
        super().__init__()
        self.logged_metrics = {}
        self.global_step = 0

    def log(self, name, value, on_step=False, on_epoch=True, prog_bar=False):
        self.logged_metrics[name] = float(value)


class LitTextClassifier(LightningModuleStub):
    def __init__(self, vocab_size=500, emb_dim=64, hidden_dim=256, num_classes=4, lr=3e-4):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, emb_dim, mode="mean")
        self.encoder = nn.Sequential(
            nn.Linear(emb_dim, hidden_dim), nn.GELU(), nn.Dropout(0.1),
            nn.Linear(hidden_dim, hidden_dim), nn.GELU(),
        )
        self.classifier = nn.Linear(hidden_dim, num_classes)
        self.lr = lr
        self.training_step_outputs = []

    def forward(self, token_ids):
        return self.classifier(self.encoder(self.embedding(token_ids)))

    def training_step(self, batch, batch_idx):
        token_ids, labels = batch
        logits = self(token_ids)
        loss = F.cross_entropy(logits, labels)
        self.log("train_loss", loss.item(), on_step=True, prog_bar=True)
        self.training_step_outputs.append(loss.item())
        return loss

    def on_train_epoch_end(self):
        epoch_average = sum(self.training_step_outputs) / max(len(self.training_step_outputs), 1)
        self.log("training_epoch_average", epoch_average)
        self.training_step_outputs.clear()  # free memory

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr, weight_decay=0.01)


class MiniTrainer:
    def __init__(self, max_steps, limit_train_batches=200):
        self.max_steps = max_steps
        self.limit_train_batches = limit_train_batches

    def fit(self, module, train_batches):
        optimizer = module.configure_optimizers()
        module.train()
        for batch_idx, batch in enumerate(train_batches):
            if module.global_step >= self.max_steps:
                break
            optimizer.zero_grad(set_to_none=True)
            loss = module.training_step(batch, batch_idx)
            loss.backward()
            optimizer.step()
            module.global_step += 1
            if (batch_idx + 1) % self.limit_train_batches == 0:
                module.on_train_epoch_end()
        return module.logged_metrics


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        token_ids = torch.randint(0, 500, (64, 24), generator=g)
        labels = torch.randint(0, 4, (64,), generator=g)
        batches.append((token_ids, labels))
    return batches


def run(batches):
    torch.manual_seed(0)
    model = LitTextClassifier()
    trainer = MiniTrainer(max_steps=len(batches))
    metrics = trainer.fit(model, batches)
    return metrics["train_loss"]


if __name__ == "__main__":
    print(run(make_batches(5)))
