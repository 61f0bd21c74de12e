# Source: https://github.com/ajhamdi/MVTN/issues/2
# Shape: The multi-view training loop sums the attached per-batch loss into total_loss (total_loss += loss) to report the epoch average, so the autograd graph of every batch (view regressor, renderer, multi-view CNN) stays linked to total_loss until the epoch ends; RAM grows until the process is killed.
# Verdict: leak
import io
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

SETUP = {
    "nb_views": 4,
    "nb_points": 64,
    "image_size": 12,
    "nb_classes": 6,
    "batch_size": 8,
    "learning_rate": 1e-3,
    "mvtn_learning_rate": 1e-4,
    "clip_grads": True,
    "mvtn_clip_grads_value": 30.0,
    "epochs": 1,
}


def make_batches(n_batches=5, setup=SETUP, seed=0):
    """Synthetic point clouds: class k is an ellipsoid with class-specific axes."""
    g = torch.Generator().manual_seed(seed)
    axes = 0.4 + torch.rand(setup["nb_classes"], 3, generator=g)
    batches = []
    for _ in range(n_batches):
        targets = torch.randint(0, setup["nb_classes"], (setup["batch_size"],), generator=g)
        pts = F.normalize(torch.randn(setup["batch_size"], setup["nb_points"], 3, generator=g), dim=-1)
        points = pts * axes[targets][:, None, :]
        batches.append((targets, points))
    return batches


class MVTN(nn.Module):
    """Regresses per-shape view offsets (azimuth, elevation) from a PointNet-like encoder."""

    def __init__(self, nb_views):
        super().__init__()
        self.nb_views = nb_views
        self.point_mlp = nn.Sequential(nn.Linear(3, 32), nn.ReLU(), nn.Linear(32, 64), nn.ReLU())
        self.regressor = nn.Sequential(nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, 2 * nb_views), nn.Tanh())
        base = torch.arange(nb_views, dtype=torch.float32) * (360.0 / nb_views)
        self.register_buffer("azim_base", base)
        self.register_buffer("elev_base", torch.full((nb_views,), 30.0))

    def forward(self, points):
        feats = self.point_mlp(points).max(dim=1).values
        offsets = self.regressor(feats).view(-1, 2, self.nb_views)
        azim = self.azim_base[None] + 180.0 / self.nb_views * offsets[:, 0]
        elev = self.elev_base[None] + 45.0 * offsets[:, 1]
        return azim, elev


class SoftPointRenderer(nn.Module):
    """Differentiable orthographic splatting of a point cloud into nb_views depth-like images."""

    def __init__(self, image_size, sigma=0.08):
        super().__init__()
        lin = torch.linspace(-1, 1, image_size)
        gy, gx = torch.meshgrid(lin, lin, indexing="ij")
        self.register_buffer("grid", torch.stack([gx, gy], -1).view(-1, 2))
        self.sigma = sigma
        self.image_size = image_size

    def forward(self, points, azim, elev):
        a, e = torch.deg2rad(azim), torch.deg2rad(elev)
        ca, sa, ce, se = torch.cos(a), torch.sin(a), torch.cos(e), torch.sin(e)
        x, y, z = points[..., 0:1], points[..., 1:2], points[..., 2:3]
        u = ca[:, None, :] * x - sa[:, None, :] * z
        w = sa[:, None, :] * x + ca[:, None, :] * z
        v = ce[:, None, :] * y - se[:, None, :] * w
        proj = torch.stack([u, v], -1).permute(0, 2, 1, 3)
        d2 = (proj[:, :, :, None, :] - self.grid[None, None, None]).pow(2).sum(-1)
        img = torch.exp(-d2 / (2 * self.sigma ** 2)).sum(2)
        return img.view(points.shape[0], -1, 1, self.image_size, self.image_size)


class MVNetwork(nn.Module):
    def __init__(self, nb_classes):
        super().__init__()
        self.cnn = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                 nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.fc = nn.Linear(32, nb_classes)

    def forward(self, mvimages):
        b, m = mvimages.shape[:2]
        feats = self.cnn(mvimages.flatten(0, 1)).view(b, m, -1)
        return self.fc(feats.max(dim=1).values), feats


def build_models_bag(setup):
    mvnetwork = MVNetwork(setup["nb_classes"])
    mvtn = MVTN(setup["nb_views"])
    return {
        "mvnetwork": mvnetwork,
        "mvtn": mvtn,
        "mvrenderer": SoftPointRenderer(setup["image_size"]),
        "optimizer": torch.optim.AdamW(mvnetwork.parameters(), lr=setup["learning_rate"]),
        "mvtn_optimizer": torch.optim.AdamW(mvtn.parameters(), lr=setup["mvtn_learning_rate"]),
    }


def clip_grads_(parameters, max_norm):
    parameters = [p for p in parameters if p.grad is not None]
    total_norm = torch.norm(torch.stack([p.grad.detach().norm() for p in parameters]))
    coef = max_norm / (total_norm + 1e-6)
    if coef < 1:
        for p in parameters:
            p.grad.detach().mul_(coef)
    return total_norm


def train(data_loader, models_bag, setup):
    models_bag["mvnetwork"].train()
    models_bag["mvtn"].train()
    total_loss, n, correct, total = 0.0, 0, 0, 0
    for targets, points in data_loader:
        azim, elev = models_bag["mvtn"](points)
        rendered_images = models_bag["mvrenderer"](points, azim, elev)
        outputs = models_bag["mvnetwork"](rendered_images)[0]
        loss = F.cross_entropy(outputs, targets)
        models_bag["optimizer"].zero_grad()
        models_bag["mvtn_optimizer"].zero_grad()
        loss.backward()
        models_bag["optimizer"].step()
        if setup["clip_grads"]:
            clip_grads_(models_bag["mvtn"].parameters(), setup["mvtn_clip_grads_value"])
        models_bag["mvtn_optimizer"].step()
        total_loss += loss  # TLK101
        n += 1
        _, predicted = torch.max(outputs.data, 1)
        total += targets.size(0)
        correct += (predicted == targets).sum().item()
    avg_train_acc = 100.0 * correct / total
    avg_loss = total_loss / n
    return avg_train_acc, avg_loss


def evaluate(data_loader, models_bag):
    total_loss, n, correct, total = 0.0, 0, 0, 0
    models_bag["mvnetwork"].eval()
    models_bag["mvtn"].eval()
    for targets, points in data_loader:
        with torch.no_grad():
            azim, elev = models_bag["mvtn"](points)
            outputs = models_bag["mvnetwork"](models_bag["mvrenderer"](points, azim, elev))[0]
            loss = F.cross_entropy(outputs, targets)
            total_loss += loss
            n += 1
            total += targets.size(0)
            correct += (outputs.argmax(1) == targets).sum().item()
    return 100.0 * correct / total, total_loss / n


def save_checkpoint(models_bag, epoch, best_acc):
    buf = io.BytesIO()
    torch.save({"epoch": epoch, "best_acc": best_acc,
                "state_dict": models_bag["mvnetwork"].state_dict(),
                "mvtn": models_bag["mvtn"].state_dict()}, buf)
    return len(buf.getvalue())


def run(steps):
    torch.manual_seed(0)
    setup = dict(SETUP)
    batches = make_batches(5, setup, seed=0)
    val_batches = make_batches(2, setup, seed=1)
    models_bag = build_models_bag(setup)
    # one "epoch" of `steps` batches, as in the issue the leak lives for the whole epoch
    epoch_loader = [batches[i % len(batches)] for i in range(steps)]
    avg_train_acc, avg_loss = train(epoch_loader, models_bag, setup)
    val_acc, val_loss = evaluate(val_batches, models_bag)
    setup["best_acc"] = max(setup.get("best_acc", 0.0), val_acc)
    ckpt_size = save_checkpoint(models_bag, 0, setup["best_acc"])
    return {"models_bag": models_bag, "avg_loss": avg_loss, "avg_train_acc": avg_train_acc,
            "val": (val_acc, val_loss), "ckpt_size": ckpt_size}


if __name__ == "__main__":
    run(10)
