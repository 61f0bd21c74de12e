# Source: https://github.com/microsoft/SpareNet/issues/12
# Shape: A point-cloud completion runner passes the loss-part tensors returned by compute_loss straight into AverageMeter.update, whose running sum then chains every batch's graph.
# Verdict: clean
import torch
import torch.nn as nn


class AverageMeter:
    def __init__(self, name):
        self.name = name
        self.reset()

    def reset(self):
        self.val = 0.0
        self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum = self.sum + val * n
        self.count += n

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def chamfer_distance(a, b):
    d = torch.cdist(a, b)
    return d.min(dim=2).values.mean() + d.min(dim=1).values.mean()


class CompletionNet(nn.Module):
    def __init__(self, n_out=48, width=64):
        super().__init__()
        self.n_out = n_out
        self.point_mlp = nn.Sequential(nn.Linear(3, width), nn.ReLU(), nn.Linear(width, width))
        self.coarse = nn.Linear(width, n_out * 3)
        self.refine = nn.Sequential(nn.Linear(3 + width, width), nn.ReLU(), nn.Linear(width, 3))

    def forward(self, partial):
        feat = self.point_mlp(partial).max(dim=1).values
        coarse = self.coarse(feat).view(-1, self.n_out, 3)
        ctx = feat.unsqueeze(1).expand(-1, self.n_out, -1)
        fine = coarse + self.refine(torch.cat([coarse, ctx], dim=-1))
        return coarse, fine


def compute_loss(coarse, fine, gt, w_coarse=0.5):
    cd_coarse = chamfer_distance(coarse, gt)
    cd_fine = chamfer_distance(fine, gt)
    total = w_coarse * cd_coarse + cd_fine
    return total, {"cd_coarse": cd_coarse, "cd_fine": cd_fine, "total": total}


class Runner:
    def __init__(self, net, lr=1e-3):
        self.net = net
        self.optimizer = torch.optim.Adam(net.parameters(), lr=lr)
        self.meters = {k: AverageMeter(k) for k in ("cd_coarse", "cd_fine", "total")}
        self.log = []

    def train_step(self, partial, gt):
        self.net.train()
        coarse, fine = self.net(partial)
        total, parts = compute_loss(coarse, fine, gt)
        self.optimizer.zero_grad()
        total.backward()
        self.optimizer.step()
        return parts

    def run_epoch(self, loader):
        for m in self.meters.values():
            m.reset()
        for step, (partial, gt) in enumerate(loader):
            parts = self.train_step(partial, gt)
            bs = partial.shape[0]
            for key, value in parts.items():
                self.meters[key].update(value.item(), bs)
            if step % 8 == 0:
                self.log.append({k: float(m.avg) for k, m in self.meters.items()})
        return {k: float(m.avg) for k, m in self.meters.items()}


def make_batches(n=24, seed=0, bs=8, n_gt=64, n_partial=32):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        gt = torch.randn(bs, n_gt, 3, generator=g)
        gt = gt / gt.norm(dim=-1, keepdim=True)
        keep = gt[:, :, 2].argsort(dim=1)[:, :n_partial]
        partial = torch.gather(gt, 1, keep.unsqueeze(-1).expand(-1, -1, 3))
        out.append((partial, gt))
    return out


def run(batches):
    torch.manual_seed(0)
    runner = Runner(CompletionNet())
    summary = runner.run_epoch(batches)
    print("epoch:", summary)
    return summary


if __name__ == "__main__":
    run(make_batches())
