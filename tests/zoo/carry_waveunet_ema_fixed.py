# Source: https://github.com/haoxiangsnr/Wave-U-Net-for-Speech-Enhancement/blob/master/trainer/trainer.py
# Shape: ModelEMA.update() blends param.detach() into the shadow copies, so the shadow weights are plain tensors whatever the grad mode; loss_total uses loss.item(), validation runs under @torch.no_grad() inside the apply_to() context manager, and checkpoints deep-copy state_dicts.
# Verdict: clean
"""Waveform speech enhancement with a small 1-D U-Net, organised like
trainer/base_trainer.py + trainer/trainer.py: BaseTrainer.train() loops over
epochs, calls _train_epoch()/_validation_epoch() hooks implemented by the
Trainer subclass, tracks the best score and keeps checkpoints; an EMA of the
weights is used for validation.
"""
import copy
import math
from contextlib import contextmanager

import torch
import torch.nn as nn
import torch.nn.functional as F

config = {
    "trainer": {"epochs": 1, "save_checkpoint_interval": 1, "validation_interval": 1},
    "ema_decay": 0.995,
    "sample_length": 256,
    "batch_size": 8,
    "lr": 1e-3,
}


# --------------------------------------------------------------------------
# model/unet_basic.py (reduced)
# --------------------------------------------------------------------------
class DownSamplingLayer(nn.Module):
    def __init__(self, channel_in, channel_out, kernel_size=15, padding=7):
        super().__init__()
        self.main = nn.Sequential(nn.Conv1d(channel_in, channel_out, kernel_size, padding=padding),
                                  nn.BatchNorm1d(channel_out), nn.LeakyReLU(0.1))

    def forward(self, ipt):
        return self.main(ipt)


class UpSamplingLayer(nn.Module):
    def __init__(self, channel_in, channel_out, kernel_size=5, padding=2):
        super().__init__()
        self.main = nn.Sequential(nn.Conv1d(channel_in, channel_out, kernel_size, padding=padding),
                                  nn.BatchNorm1d(channel_out), nn.LeakyReLU(0.1))

    def forward(self, ipt):
        return self.main(ipt)


class Model(nn.Module):
    def __init__(self, n_layers=3, channels_interval=8):
        super().__init__()
        self.n_layers = n_layers
        enc_in = [1] + [i * channels_interval for i in range(1, n_layers)]
        enc_out = [i * channels_interval for i in range(1, n_layers + 1)]
        self.encoder = nn.ModuleList([DownSamplingLayer(a, b) for a, b in zip(enc_in, enc_out)])
        self.middle = nn.Sequential(nn.Conv1d(enc_out[-1], enc_out[-1], 15, padding=7),
                                    nn.BatchNorm1d(enc_out[-1]), nn.LeakyReLU(0.1))
        dec_in = [2 * c for c in enc_out[::-1]]
        dec_out = enc_out[::-1][1:] + [channels_interval]
        self.decoder = nn.ModuleList([UpSamplingLayer(a, b) for a, b in zip(dec_in, dec_out)])
        self.out = nn.Sequential(nn.Conv1d(1 + channels_interval, 1, kernel_size=1), nn.Tanh())

    def forward(self, input):
        tmp = []
        o = input
        for i in range(self.n_layers):
            o = self.encoder[i](o)
            tmp.append(o)
            o = o[:, :, ::2]
        o = self.middle(o)
        for i in range(self.n_layers):
            o = F.interpolate(o, scale_factor=2, mode="linear", align_corners=True)
            o = torch.cat([o, tmp[self.n_layers - i - 1]], dim=1)
            o = self.decoder[i](o)
        o = torch.cat([o, input], dim=1)
        return self.out(o)


# --------------------------------------------------------------------------
# utils: EMA of the weights + metrics
# --------------------------------------------------------------------------
class ModelEMA(object):
    def __init__(self, model, decay=0.999):
        self.decay = decay
        self.updates = 0
        self.shadow = {name: p.detach().clone() for name, p in model.named_parameters()}

    def update(self, model):
        self.updates += 1
        d = self.decay * (1 - math.exp(-self.updates / 200))  # warm-up
        for name, param in model.named_parameters():
            self.shadow[name] = d * self.shadow[name] + (1.0 - d) * param.detach()

    @contextmanager
    def apply_to(self, model):
        """Temporarily swap the EMA weights into `model` (for validation)."""
        backup = {name: p.detach().clone() for name, p in model.named_parameters()}
        with torch.no_grad():
            for name, p in model.named_parameters():
                p.copy_(self.shadow[name])
        try:
            yield model
        finally:
            with torch.no_grad():
                for name, p in model.named_parameters():
                    p.copy_(backup[name])


def si_sdr(reference, estimate, eps=1e-8):
    reference = reference - reference.mean(-1, keepdim=True)
    estimate = estimate - estimate.mean(-1, keepdim=True)
    alpha = (reference * estimate).sum(-1, keepdim=True) / (reference.pow(2).sum(-1, keepdim=True) + eps)
    target = alpha * reference
    noise = estimate - target
    return 10 * torch.log10(target.pow(2).sum(-1) / (noise.pow(2).sum(-1) + eps) + eps)


# --------------------------------------------------------------------------
# trainer/base_trainer.py
# --------------------------------------------------------------------------
class BaseTrainer:
    def __init__(self, config, model, loss_function, optimizer):
        self.model = model
        self.loss_function = loss_function
        self.optimizer = optimizer
        self.epochs = config["trainer"]["epochs"]
        self.save_checkpoint_interval = config["trainer"]["save_checkpoint_interval"]
        self.validation_interval = config["trainer"]["validation_interval"]
        self.start_epoch = 1
        self.best_score = -float("inf")
        self.checkpoints = {}
        self.scalars = []

    def _save_checkpoint(self, epoch, is_best=False):
        state_dict = {
            "epoch": epoch,
            "best_score": self.best_score,
            "optimizer": copy.deepcopy(self.optimizer.state_dict()),
            "model": copy.deepcopy(self.model.state_dict()),
        }
        self.checkpoints["latest_model"] = state_dict
        if is_best:
            self.checkpoints["best_model"] = state_dict

    def _is_best(self, score, find_max=True):
        if find_max and score >= self.best_score:
            self.best_score = score
            return True
        return False

    def _train_epoch(self, epoch):
        raise NotImplementedError

    def _validation_epoch(self, epoch):
        raise NotImplementedError

    def train(self):
        for epoch in range(self.start_epoch, self.epochs + 1):
            print(f"============== {epoch} epoch ==============")
            self.model.train()
            self._train_epoch(epoch)
            if self.save_checkpoint_interval != 0 and (epoch % self.save_checkpoint_interval == 0):
                self._save_checkpoint(epoch)
            if self.validation_interval != 0 and epoch % self.validation_interval == 0:
                self.model.eval()
                score = self._validation_epoch(epoch)
                if self._is_best(score, find_max=True):
                    self._save_checkpoint(epoch, is_best=True)
        return self


# --------------------------------------------------------------------------
# trainer/trainer.py
# --------------------------------------------------------------------------
class Trainer(BaseTrainer):
    def __init__(self, config, model, loss_function, optimizer, train_dataloader, validation_dataloader):
        super().__init__(config, model, loss_function, optimizer)
        self.train_data_loader = train_dataloader
        self.validation_data_loader = validation_dataloader
        self.sample_length = config["sample_length"]
        self.ema = ModelEMA(model, decay=config["ema_decay"])

    def _train_epoch(self, epoch):
        loss_total = 0.0
        n = 0
        for i, (mixture, clean) in enumerate(self.train_data_loader):
            self.optimizer.zero_grad()
            enhanced = self.model(mixture)
            loss = self.loss_function(clean, enhanced)
            loss.backward()
            self.optimizer.step()
            self.ema.update(self.model)

            loss_total += loss.item()
            n += 1
        self.scalars.append(("Train/Loss", epoch, loss_total / max(n, 1)))

    @torch.no_grad()
    def _validation_epoch(self, epoch):
        sdr_c_n, sdr_c_d = [], []
        with self.ema.apply_to(self.model):
            for mixture, clean in self.validation_data_loader:
                # input of the model should have a fixed length
                mixture_chunks = torch.split(mixture, self.sample_length, dim=2)
                if mixture_chunks[-1].shape[-1] != self.sample_length:
                    mixture_chunks = mixture_chunks[:-1]
                enhanced_chunks = []
                for chunk in mixture_chunks:
                    enhanced_chunks.append(self.model(chunk))
                enhanced = torch.cat(enhanced_chunks, dim=2)
                clean = clean[..., :enhanced.shape[-1]]
                mixture = mixture[..., :enhanced.shape[-1]]
                sdr_c_n.append(si_sdr(clean, mixture).mean().item())
                sdr_c_d.append(si_sdr(clean, enhanced).mean().item())
        get_metrics_ave = lambda metrics: sum(metrics) / len(metrics)
        self.scalars.append(("SI-SDR/noisy", epoch, get_metrics_ave(sdr_c_n)))
        self.scalars.append(("SI-SDR/enhanced", epoch, get_metrics_ave(sdr_c_d)))
        return get_metrics_ave(sdr_c_d)


# --------------------------------------------------------------------------
# data
# --------------------------------------------------------------------------
class SyntheticNoisyLoader(object):
    """Re-iterable stand-in for the waveform DataLoader: batches are produced
    on the fly from a seed, so nothing is cached between epochs."""

    def __init__(self, n_batches, batch_size, length, seed):
        self.n_batches, self.batch_size, self.length, self.seed = n_batches, batch_size, length, seed

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        g = torch.Generator().manual_seed(self.seed)
        t = torch.arange(self.length, dtype=torch.float32)
        for _ in range(self.n_batches):
            f0 = 0.02 + 0.05 * torch.rand(self.batch_size, 1, 1, generator=g)
            clean = 0.5 * torch.sin(2 * math.pi * f0 * t) * torch.rand(self.batch_size, 1, 1, generator=g)
            noise = 0.2 * torch.randn(self.batch_size, 1, self.length, generator=g)
            yield clean + noise, clean


def make_batches(n_batches, batch_size=8, length=256, seed=0):
    return SyntheticNoisyLoader(n_batches, batch_size, length, seed)


def run(steps):
    torch.manual_seed(0)
    model = Model(n_layers=3, channels_interval=8)
    optimizer = torch.optim.Adam(model.parameters(), lr=config["lr"], betas=(0.9, 0.999))
    loss_function = nn.L1Loss()
    train_loader = make_batches(steps, config["batch_size"], config["sample_length"])
    valid_loader = make_batches(2, 1, config["sample_length"] * 3, seed=5)
    trainer = Trainer(config, model, loss_function, optimizer, train_loader, valid_loader)
    trainer.train()
    return trainer


if __name__ == "__main__":
    run(10)
