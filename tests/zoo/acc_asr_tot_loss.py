# Source: https://github.com/by2101/OpenASR/issues/12
# Shape: the trainer's running tot_loss is rebuilt as tot_loss + batch_loss every step, so it chains every step's attached CTC loss graph for the whole epoch.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {"feat_dim": 8, "hidden": 16, "vocab": 6, "frames": 12, "label_len": 3,
          "batch": 4, "num_chunks": 2, "lr": 1e-3, "grad_clip": 5.0, "log_interval": 5}


class ConvGRUEncoder(nn.Module):
    def __init__(self, feat_dim, hidden, vocab):
        super().__init__()
        self.conv = nn.Conv1d(feat_dim, hidden, kernel_size=3, padding=1)
        self.rnn = nn.GRU(hidden, hidden, batch_first=True)
        self.proj = nn.Linear(hidden, vocab)

    def forward(self, feats):
        x = F.relu(self.conv(feats.transpose(1, 2))).transpose(1, 2)
        x, _ = self.rnn(x)
        return self.proj(x).log_softmax(-1)


class Trainer:
    def __init__(self, model, config):
        self.model = model
        self.config = config
        self.optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"])
        self.ctc = nn.CTCLoss(blank=0, zero_infinity=True)
        self.step = 0
        self.log_lines = []

    def chunk_loss(self, feats, labels):
        logp = self.model(feats).transpose(0, 1)
        in_lens = torch.full((feats.size(0),), feats.size(1), dtype=torch.long)
        tgt_lens = torch.full((feats.size(0),), labels.size(1), dtype=torch.long)
        return self.ctc(logp, labels, in_lens, tgt_lens)

    def train_one_batch(self, batch):
        feats, labels = batch
        n = self.config["num_chunks"]
        batch_loss = 0.0
        for f_chunk, l_chunk in zip(feats.chunk(n), labels.chunk(n)):
            batch_loss = batch_loss + self.chunk_loss(f_chunk, l_chunk) / n
        self.optimizer.zero_grad()
        batch_loss.backward()
        nn.utils.clip_grad_norm_(self.model.parameters(), self.config["grad_clip"])
        self.optimizer.step()
        return batch_loss

    def train_epoch(self, loader):
        self.model.train()
        tot_loss = 0.0
        n_batches = 0
        for batch in loader:
            batch_loss = self.train_one_batch(batch)
            tot_loss = tot_loss + batch_loss  # TLK101
            n_batches += 1
            self.step += 1
            if self.step % self.config["log_interval"] == 0:
                self.log_lines.append("step %d avg loss %.4f" % (self.step, float(tot_loss) / n_batches))
        return n_batches


def make_batches(n):
    c = CONFIG
    out = []
    for _ in range(n):
        feats = torch.randn(c["batch"], c["frames"], c["feat_dim"])
        labels = torch.randint(1, c["vocab"], (c["batch"], c["label_len"]))
        out.append((feats, labels))
    return out


def run(batches):
    torch.manual_seed(0)
    model = ConvGRUEncoder(CONFIG["feat_dim"], CONFIG["hidden"], CONFIG["vocab"])
    trainer = Trainer(model, CONFIG)
    trainer.train_epoch(batches)
    return None
