# Source: https://github.com/TRI-ML/packnet-sfm/pull/51
# Shape: A Lightning-like loop collects every training_step output dict, detached, into a list for an on_train_epoch_end hook.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class MiniLightningModule(nn.Module):
    """Just enough of the LightningModule surface for this script."""

    def log(self, name, value):
        self.logged = getattr(self, "logged", {})
        self.logged[name] = float(value)


class MiniTrainer:
    def __init__(self, max_epochs=1):
        self.max_epochs = max_epochs
        self.step_outputs = []

    def fit(self, module, train_loader):
        opt = module.configure_optimizers()
        for epoch in range(self.max_epochs):
            module.train()
            self.step_outputs = []
            for batch_idx, batch in enumerate(train_loader):
                out = module.training_step(batch, batch_idx)
                opt.zero_grad()
                out["loss"].backward()
                opt.step()
                self.step_outputs.append({k: (v.detach() if torch.is_tensor(v) else v) for k, v in out.items()})
            module.on_train_epoch_end(self.step_outputs)


class DepthNet(MiniLightningModule):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Conv2d(8, 8, 3, padding=1), nn.ReLU())
        self.dec = nn.Conv2d(8, 1, 3, padding=1)

    def forward(self, img):
        return F.softplus(self.dec(self.enc(img)))

    def training_step(self, batch, batch_idx):
        img, depth_gt = batch
        depth = self(img)
        l1 = F.l1_loss(depth, depth_gt)
        smooth = (depth[..., 1:] - depth[..., :-1]).abs().mean()
        loss = l1 + 0.1 * smooth
        self.log("train/l1", l1.item())
        return {"loss": loss, "l1": l1.item()}

    def on_train_epoch_end(self, outputs):
        self.log("train/epoch_loss", torch.stack([o["loss"] for o in outputs]).mean())

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=2e-4)


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.rand(2, 3, 12, 12, generator=g), torch.rand(2, 1, 12, 12, generator=g) * 5) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    net = DepthNet()
    MiniTrainer().fit(net, batches)
    print(net.logged)


if __name__ == "__main__":
    run(make_batches())
