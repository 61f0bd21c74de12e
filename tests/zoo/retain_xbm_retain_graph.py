# Source: https://github.com/msight-tech/research-xbm/blob/master/ret_benchmark/engine/trainer.py
# Shape: the batch loss and the cross-batch-memory loss are backpropagated separately; the first backward rightly retains the shared embedding graph, but the last one (xbm_loss) also passes retain_graph=True although nothing backpropagates through it again, so after every step the graph stays alive with its saved tensors, including the memory snapshot it read, which keeps growing as the memory fills.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

EMB_DIM = 32
IN_DIM = 40
N_CLASSES = 8
BATCH = 16


class XBM:
    def __init__(self, size):
        self.K = size
        self.feats = torch.zeros(0, EMB_DIM)
        self.targets = torch.zeros(0, dtype=torch.long)

    def get(self):
        return self.feats, self.targets

    def enqueue_dequeue(self, feats, targets):
        self.feats = torch.cat([self.feats, feats])[-self.K:]
        self.targets = torch.cat([self.targets, targets])[-self.K:]


class ContrastiveLoss(nn.Module):
    def __init__(self, margin=0.5):
        super().__init__()
        self.margin = margin

    def forward(self, inputs_col, targets_col, inputs_row, target_row):
        n = inputs_col.size(0)
        sim_mat = torch.matmul(inputs_col, inputs_row.t())
        pos_mask = targets_col.unsqueeze(1) == target_row.unsqueeze(0)
        neg_mask = ~pos_mask
        if inputs_row.size(0) == n:
            pos_mask = pos_mask & ~torch.eye(n, dtype=torch.bool)
        pos_loss = ((1 - sim_mat) * pos_mask).sum()
        neg_loss = (F.relu(sim_mat - self.margin) * neg_mask).sum()
        return (pos_loss + neg_loss) / n


class Embedder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(IN_DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, EMB_DIM)

    def forward(self, x):
        return F.normalize(self.head(self.backbone(x)), dim=1)


def make_batches(n):
    g = torch.Generator().manual_seed(13)
    protos = torch.randn(N_CLASSES, IN_DIM, generator=g)
    batches = []
    for _ in range(n):
        targets = torch.randint(0, N_CLASSES, (BATCH,), generator=g)
        images = protos[targets] + 0.3 * torch.randn(BATCH, IN_DIM, generator=g)
        batches.append((images, targets))
    return batches


def do_train(model, train_loader, optimizer, criterion, xbm_start_iteration=1, xbm_weight=1.0, probe=None):
    xbm = XBM(size=2048)
    iteration = 0
    logged = []
    for images, targets in train_loader:
        model.train()
        iteration = iteration + 1
        feats = model(images)

        loss = criterion(feats, targets, feats, targets)
        optimizer.zero_grad()
        # feats' graph is reused by xbm_loss below, so keep it for the second backward
        loss.backward(retain_graph=True)

        if iteration > xbm_start_iteration:
            xbm_feats, xbm_targets = xbm.get()
            xbm_loss = criterion(feats, targets, xbm_feats, xbm_targets)
            (xbm_weight * xbm_loss).backward(retain_graph=True)  # TLK201
            logged.append(loss.item() + xbm_weight * xbm_loss.item())
        else:
            logged.append(loss.item())

        optimizer.step()
        xbm.enqueue_dequeue(feats.detach(), targets.detach())
        if probe is not None:
            probe()
    return logged


def run(batches, probe=None):
    torch.manual_seed(0)
    model = Embedder()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = ContrastiveLoss()
    logged = do_train(model, batches, optimizer, criterion, probe=probe)
    return {"loss": logged[-1]}


if __name__ == "__main__":
    print(run(make_batches(5)))
