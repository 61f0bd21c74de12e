# Source: https://github.com/microsoft/ptgnn/pull/17
# Shape: the epoch total takes loss.item() so only a Python float crosses iterations; the micro-batch sum is a legitimate attached accumulation that is backwarded in the same step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphRegressor(nn.Module):
    def __init__(self, d_in=12, d_hid=24, rounds=2):
        super().__init__()
        self.embed = nn.Linear(d_in, d_hid)
        self.update = nn.GRUCell(d_hid, d_hid)
        self.readout = nn.Sequential(nn.Linear(d_hid, d_hid), nn.ReLU(), nn.Linear(d_hid, 1))
        self.rounds = rounds

    def forward(self, node_feats, adj):
        h = torch.tanh(self.embed(node_feats))
        for _ in range(self.rounds):
            msg = adj @ h
            h = self.update(msg, h)
        return self.readout(h.mean(dim=0))


class AmpTrainer:
    def __init__(self, model, lr=1e-3, num_micro=2):
        self.model = model
        self.opt = torch.optim.Adam(model.parameters(), lr=lr)
        self.scaler = torch.amp.GradScaler("cuda", enabled=torch.cuda.is_available())
        self.num_micro = num_micro
        self.epoch_loss = 0.0
        self.num_graphs = 0

    def _micro_batches(self, batch):
        feats, adj, target = batch
        yield from zip(feats.chunk(self.num_micro), adj.chunk(self.num_micro), target.chunk(self.num_micro))

    def train_step(self, batch):
        self.opt.zero_grad(set_to_none=True)
        minibatch_loss = 0.0
        for feats, adj, target in self._micro_batches(batch):
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=False):
                pred = torch.cat([self.model(f, a) for f, a in zip(feats, adj)])
                mb_loss = F.mse_loss(pred, target)
            minibatch_loss = minibatch_loss + mb_loss / self.num_micro
        self.scaler.scale(minibatch_loss).backward()
        self.scaler.unscale_(self.opt)
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.scaler.step(self.opt)
        self.scaler.update()
        return minibatch_loss

    def fit_epoch(self, batches):
        for batch in batches:
            loss = self.train_step(batch)
            n = batch[2].shape[0]
            self.epoch_loss += loss.item() * n
            self.num_graphs += n
        return float(self.epoch_loss) / max(self.num_graphs, 1)


def make_batches(n, graphs=4, nodes=6, d_in=12):
    out = []
    for _ in range(n):
        feats = torch.randn(graphs, nodes, d_in)
        adj = (torch.rand(graphs, nodes, nodes) > 0.6).float()
        target = torch.randn(graphs)
        out.append((feats, adj, target))
    return out


def run(batches):
    torch.manual_seed(0)
    trainer = AmpTrainer(GraphRegressor())
    trainer.fit_epoch(batches)
