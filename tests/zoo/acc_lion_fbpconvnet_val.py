# Source: https://github.com/CambridgeCIA/LION/issues/115
# Shape: The validation loop runs the denoiser without torch.no_grad() and sums the raw loss tensor into valid_loss; the per-epoch average is appended to validation_loss, so every validation graph (with all its saved activations) stays alive for the whole run.
# Verdict: leak
"""FBPConvNet-style post-processing denoiser, trained the way the LION example
script does it: a plain script with a config dict, global loss lists for
matplotlib, and a best-checkpoint-on-validation rule."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

CONFIG = {
    "batch_size": 4,
    "image_size": 16,
    "lr": 1e-3,
    "train_batches": 2,
    "val_batches": 2,
}

train_loss = []        # plotted at the end of training
validation_loss = []


class ConvBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(cout)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        return F.relu(self.bn2(self.conv2(x)))


class FBPConvNet(nn.Module):
    """Tiny U-Net with residual connection, as in Jin et al. 2017."""

    def __init__(self, ch=8):
        super().__init__()
        self.down1 = ConvBlock(1, ch)
        self.down2 = ConvBlock(ch, 2 * ch)
        self.up = nn.ConvTranspose2d(2 * ch, ch, 2, stride=2)
        self.dec = ConvBlock(2 * ch, ch)
        self.out = nn.Conv2d(ch, 1, 1)

    def forward(self, x):
        d1 = self.down1(x)
        d2 = self.down2(F.max_pool2d(d1, 2))
        u = self.up(d2)
        y = self.dec(torch.cat([u, d1], dim=1))
        return x + self.out(y)


def make_batches(n, batch_size=CONFIG["batch_size"], size=CONFIG["image_size"], seed=0):
    g = torch.Generator().manual_seed(seed)
    batches = []
    for _ in range(n):
        clean = torch.rand(batch_size, 1, size, size, generator=g)
        noisy = clean + 0.1 * torch.randn(batch_size, 1, size, size, generator=g)
        batches.append((noisy, clean))
    return batches


def train_one_epoch(model, optimiser, loss_fcn, loader):
    model.train()
    epoch_loss = 0.0
    for sino_fbp, target in loader:
        optimiser.zero_grad()
        reconstruction = model(sino_fbp)
        loss = loss_fcn(reconstruction, target)
        loss.backward()
        optimiser.step()
        epoch_loss += loss.item()
    return epoch_loss / len(loader)


def validate(model, loss_fcn, loader):
    model.eval()
    valid_loss = 0.0
    for sino_fbp, target in loader:
        reconstruction = model(sino_fbp)
        loss = loss_fcn(reconstruction, target)
        valid_loss += loss  # TLK101
    return valid_loss / len(loader)


def run(steps):
    torch.manual_seed(0)
    del train_loss[:]
    del validation_loss[:]
    model = FBPConvNet()
    optimiser = torch.optim.Adam(model.parameters(), lr=CONFIG["lr"])
    loss_fcn = nn.MSELoss()
    train_loader = make_batches(CONFIG["train_batches"], seed=1)
    val_loader = make_batches(CONFIG["val_batches"], seed=2)

    min_valid_loss = float("inf")
    best_state = None
    for epoch in range(steps):
        train_loss.append(train_one_epoch(model, optimiser, loss_fcn, train_loader))
        valid = validate(model, loss_fcn, val_loader)
        validation_loss.append(valid)
        if valid < min_valid_loss:
            min_valid_loss = valid
            best_state = copy.deepcopy(model.state_dict())
        print(f"Epoch {epoch + 1}: train {train_loss[-1]:.4f}  valid {valid:.4f}")
    return {"train_loss": train_loss, "validation_loss": validation_loss,
            "best_state": best_state, "model": model}


if __name__ == "__main__":
    run(10)
