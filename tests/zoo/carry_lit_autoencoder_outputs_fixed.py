# Source: https://github.com/ZakariaPZ/Autoencoders/blob/072ab4e3da1f33975a96aaef44fe3e7c84343fc2/autoencoders.py
# Shape: fixed twin: the smoothed loss is built from loss.detach() and the per-step outputs dict stores Python floats (.item()), so the list only holds numbers; training_step still returns the attached loss for backward and self.log(...) detaches on its own.
# Verdict: clean
from collections import defaultdict

import torch
from torch import nn
import torch.nn.functional as F


# --------------------------------------------------------------------------------------
# minimal stand-ins for lightning.LightningModule / Callback / Trainer (same hook names)
# --------------------------------------------------------------------------------------
class LightningModule(nn.Module):
    def __init__(self):
        super().__init__()
        self.trainer = None
        self._current_fx = None

    def log(self, name, value, prog_bar=False, on_step=True, on_epoch=False):
        # Lightning stores logged tensors detached (ResultCollection), never the graph.
        if isinstance(value, torch.Tensor):
            value = value.detach().float()
        self.trainer.logged_metrics[name] = value
        if prog_bar:
            self.trainer.progress_bar_metrics[name] = value
        if on_epoch:
            self.trainer.epoch_metrics[name].append(value)

    def on_train_epoch_end(self):
        pass


class Callback:
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        pass

    def on_train_epoch_end(self, trainer, pl_module):
        pass


class Trainer:
    def __init__(self, max_epochs=1, max_steps=-1, callbacks=None, log_every_n_steps=50):
        self.max_epochs = max_epochs
        self.max_steps = max_steps
        self.callbacks = callbacks or []
        self.log_every_n_steps = log_every_n_steps
        self.global_step = 0
        self.current_epoch = 0
        self.logged_metrics = {}
        self.progress_bar_metrics = {}
        self.epoch_metrics = defaultdict(list)
        self.should_stop = False

    def fit(self, model, train_dataloaders):
        model.trainer = self
        optimizer = model.configure_optimizers()
        model.train()
        for epoch in range(self.max_epochs):
            self.current_epoch = epoch
            exhausted = True
            for batch_idx, batch in enumerate(train_dataloaders):
                outputs = model.training_step(batch, batch_idx)
                loss = outputs if isinstance(outputs, torch.Tensor) else outputs["loss"]
                optimizer.zero_grad()
                loss.backward()
                optimizer.step()
                self.global_step += 1
                for cb in self.callbacks:
                    cb.on_train_batch_end(self, model, outputs, batch, batch_idx)
                if 0 < self.max_steps <= self.global_step:
                    self.should_stop = True
                    exhausted = False
                    break
            if exhausted:
                model.on_train_epoch_end()
                for cb in self.callbacks:
                    cb.on_train_epoch_end(self, model)
            if self.should_stop:
                break
        return self


# --------------------------------------------------------------------------------------
# blocks / model (as in the repository)
# --------------------------------------------------------------------------------------
class Reshape(nn.Module):
    def __init__(self, *args):
        super(Reshape, self).__init__()
        self.shape = args

    def forward(self, x):
        return x.view(self.shape)


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size=3, stride=2, padding=1):
        super(ConvBlock, self).__init__()
        self.conv = nn.Conv2d(in_channels, out_channels, kernel_size=kernel_size, stride=stride, padding=padding)
        self.bn = nn.BatchNorm2d(out_channels)
        self.relu = nn.ReLU()

    def forward(self, x):
        return self.relu(self.bn(self.conv(x)))


class DeconvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, activation=nn.ReLU, kernel_size=3, stride=2,
                 padding=1, output_padding=0):
        super(DeconvBlock, self).__init__()
        self.conv_transpose = nn.ConvTranspose2d(in_channels, out_channels, kernel_size=kernel_size,
                                                 stride=stride, padding=padding, output_padding=output_padding)
        self.bn = nn.BatchNorm2d(out_channels)
        self.activation = activation()

    def forward(self, x):
        return self.activation(self.bn(self.conv_transpose(x)))


def psnr(x_hat, x, max_val=1.0):
    mse = F.mse_loss(x_hat.clamp(0.0, max_val), x)
    return 10.0 * torch.log10(max_val ** 2 / mse)


class ConvAutoEncoder(LightningModule):
    def __init__(self, kernel_size=3, padding=1, latent_dim=8, lr=1e-3):
        super(ConvAutoEncoder, self).__init__()
        self.training_step_outputs = []
        self.smoothed_loss = None
        self.lr = lr
        stride = 2

        self.encoder = nn.Sequential(
            ConvBlock(1, 8, kernel_size, stride, padding),
            ConvBlock(8, 16, kernel_size, stride, padding),
            ConvBlock(16, 32, kernel_size, stride, padding),
            nn.Flatten(),
            nn.Linear(32 * 4 * 4, latent_dim),
        )
        self.decoder = nn.Sequential(
            nn.Linear(latent_dim, 32 * 4 * 4),
            Reshape(-1, 32, 4, 4),
            DeconvBlock(32, 16, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=0),
            DeconvBlock(16, 8, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=1),
            DeconvBlock(8, 1, kernel_size=kernel_size, stride=stride, padding=padding, output_padding=1,
                        activation=nn.Sigmoid),
        )

    def forward(self, x):
        z = self.encoder(x)
        return self.decoder(z)

    def training_step(self, batch, batch_idx):
        x, y = batch
        x_hat = self(x)
        loss = nn.functional.mse_loss(x_hat, x)
        self.smoothed_loss = loss.detach() if self.smoothed_loss is None else 0.98 * self.smoothed_loss + 0.02 * loss.detach()
        self.log("train_loss", loss)
        self.log("loss_ema", self.smoothed_loss, prog_bar=True)
        self.training_step_outputs.append({"loss": loss.item(), "psnr": psnr(x_hat, x).item()})
        return loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.lr)


class MyCallback(Callback):
    def on_train_epoch_end(self, trainer, pl_module):
        # do something with all training_step outputs, for example:
        outputs = pl_module.training_step_outputs
        epoch_mean = torch.stack([torch.as_tensor(o["loss"]) for o in outputs]).mean()
        epoch_psnr = torch.stack([torch.as_tensor(o["psnr"]) for o in outputs]).mean()
        pl_module.log("training_epoch_mean", epoch_mean)
        pl_module.log("training_epoch_psnr", epoch_psnr)
        # free up the memory
        pl_module.training_step_outputs.clear()


class SyntheticDigits:
    """Stand-in for the MNIST DataLoader: deterministic 28x28 blobs, yielded lazily."""

    def __init__(self, num_batches, batch_size=16, seed=0):
        self.num_batches = num_batches
        self.batch_size = batch_size
        self.seed = seed

    def __len__(self):
        return self.num_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        yy, xx = torch.meshgrid(torch.arange(28.0), torch.arange(28.0), indexing="ij")
        for _ in range(self.num_batches):
            cy = 6 + 16 * torch.rand(self.batch_size, 1, 1, generator=g)
            cx = 6 + 16 * torch.rand(self.batch_size, 1, 1, generator=g)
            img = torch.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / 18.0).unsqueeze(1)
            labels = torch.randint(0, 10, (self.batch_size,), generator=g)
            yield img, labels


def make_batches(num_batches, batch_size=16, seed=0):
    return SyntheticDigits(num_batches, batch_size=batch_size, seed=seed)


def run(steps):
    torch.manual_seed(0)
    model = ConvAutoEncoder(latent_dim=8)
    # one long epoch (like a full MNIST pass); training stops after `steps` optimizer steps
    trainer = Trainer(max_epochs=1, max_steps=steps, callbacks=[MyCallback()])
    trainer.fit(model, train_dataloaders=make_batches(num_batches=500))
    return model


if __name__ == "__main__":
    run(10)
