# Source: https://github.com/Lightning-AI/pytorch-lightning/issues/1076
# Shape: the loop detaches every tensor of the step output before keeping it for training_epoch_end, so the stored logits/losses carry no graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TextClassifier(nn.Module):
    def __init__(self, vocab=50, dim=16, classes=3):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean")
        self.head = nn.Sequential(nn.Linear(dim, dim), nn.GELU(), nn.Linear(dim, classes))
        self.metrics = {}

    def forward(self, tokens):
        return self.head(self.emb(tokens))

    def training_step(self, batch, batch_idx):
        tokens, labels = batch
        logits = self(tokens)
        loss = F.cross_entropy(logits, labels)
        return {"loss": loss, "logits": logits, "labels": labels}

    def training_epoch_end(self, outputs):
        logits = torch.cat([o["logits"] for o in outputs])
        labels = torch.cat([o["labels"] for o in outputs])
        self.metrics["train_acc"] = (logits.argmax(-1) == labels).float().mean().item()
        self.metrics["train_loss"] = torch.stack([o["loss"] for o in outputs]).mean().item()

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=3e-3)


class MiniTrainer:
    def __init__(self, max_epochs=1, log_every_n_steps=5):
        self.max_epochs = max_epochs
        self.log_every_n_steps = log_every_n_steps
        self.logged = []

    def _run_epoch(self, module, optimizer, loader):
        epoch_outputs = []
        for batch_idx, batch in enumerate(loader):
            step_out = module.training_step(batch, batch_idx)
            optimizer.zero_grad()
            step_out["loss"].backward()
            optimizer.step()
            if batch_idx % self.log_every_n_steps == 0:
                self.logged.append((batch_idx, step_out["loss"].item()))
            epoch_outputs.append({k: v.detach() for k, v in step_out.items()})
        module.training_epoch_end(epoch_outputs)

    def fit(self, module, loader):
        optimizer = module.configure_optimizers()
        for _ in range(self.max_epochs):
            self._run_epoch(module, optimizer, loader)


def make_batches(n, bs=6, seq=7):
    return [(torch.randint(0, 50, (bs, seq)), torch.randint(0, 3, (bs,))) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    MiniTrainer().fit(TextClassifier(), batches)
