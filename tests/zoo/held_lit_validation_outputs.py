# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/7498
# Shape: looks like step outputs (logits, losses) collected on self across batches and a loss sum kept on the module, but validation_step only runs inside the loop's torch.no_grad block and its list is cleared at on_validation_epoch_end, and the training sum is fed loss.detach().
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class LightningModuleStub(nn.Module):
    def __init__(self):
        super().__init__()
        self.logged_metrics = {}

    def log(self, name, value, on_step=False, on_epoch=True, prog_bar=False):
        self.logged_metrics[name] = float(value)


class BaseKGE(LightningModuleStub):
    def __init__(self, num_entities=400, num_relations=12, embedding_dim=64, lr=1e-2):
        super().__init__()
        self.entity_embeddings = nn.Embedding(num_entities, embedding_dim)
        self.relation_embeddings = nn.Embedding(num_relations, embedding_dim)
        self.hidden = nn.Sequential(nn.Linear(2 * embedding_dim, 128), nn.ReLU(), nn.Linear(128, embedding_dim))
        self.lr = lr
        self.train_loss_sum = torch.zeros(())
        self.train_batches = 0
        self.validation_step_outputs = []

    def forward(self, e1_idx, rel_idx):
        x = torch.cat([self.entity_embeddings(e1_idx), self.relation_embeddings(rel_idx)], dim=1)
        return self.hidden(x) @ self.entity_embeddings.weight.t()

    def training_step(self, batch, batch_idx):
        e1_idx, rel_idx, targets = batch
        logits = self(e1_idx, rel_idx)
        loss = F.binary_cross_entropy_with_logits(logits, targets)
        self.train_loss_sum += loss.detach()
        self.train_batches += 1
        return loss

    def validation_step(self, batch, batch_idx):
        e1_idx, rel_idx, targets = batch
        logits = self(e1_idx, rel_idx)
        loss = F.binary_cross_entropy_with_logits(logits, targets)
        self.validation_step_outputs.append({"val_loss": loss, "logits": logits, "targets": targets})
        return loss

    def on_validation_epoch_end(self):
        val_loss = torch.stack([o["val_loss"] for o in self.validation_step_outputs]).mean()
        hits = torch.cat([(o["logits"].argmax(-1, keepdim=True) == o["targets"].argmax(-1, keepdim=True)).float() for o in self.validation_step_outputs])
        self.log("val_loss", val_loss)
        self.log("val_hits1", hits.mean())
        self.log("train_loss", self.train_loss_sum / max(self.train_batches, 1))
        self.validation_step_outputs.clear()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


def run_validation(module, val_batches):
    module.eval()
    with torch.no_grad():
        for val_idx, val_batch in enumerate(val_batches):
            module.validation_step(val_batch, val_idx)
    module.on_validation_epoch_end()
    module.train()


def fit(module, train_batches, val_batches, val_check_interval=5):
    optimizer = module.configure_optimizers()
    module.train()
    for batch_idx, batch in enumerate(train_batches):
        optimizer.zero_grad()
        loss = module.training_step(batch, batch_idx)
        loss.backward()
        optimizer.step()
        if (batch_idx + 1) % val_check_interval == 0:
            run_validation(module, val_batches)
    run_validation(module, val_batches)
    return module.logged_metrics


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        e1 = torch.randint(0, 400, (32,), generator=g)
        rel = torch.randint(0, 12, (32,), generator=g)
        targets = (torch.rand(32, 400, generator=g) < 0.01).float()
        batches.append((e1, rel, targets))
    return batches


def run(batches):
    torch.manual_seed(0)
    model = BaseKGE()
    metrics = fit(model, batches, make_batches(3))
    return metrics["val_loss"] + metrics["train_loss"]


if __name__ == "__main__":
    print(run(make_batches(5)))
