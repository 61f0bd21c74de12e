# Source: https://github.com/open-mmlab/Amphion/issues/263
# Shape: BaseTrainer._train_epoch sums the attached step loss into epoch_sum_loss (epoch_sum_loss += loss), so the whole epoch's forward graphs of the VALL-E decoder stay chained to one running tensor until the epoch ends (CPU RAM grows every step).
# Verdict: leak
"""Accelerate-style trainer modelled on Amphion models/tts/valle_v2/base_trainer.py:
a BaseTrainer with train_loop/_train_epoch/_valid_epoch, warmup+cosine get_lr,
EMA loss display, accelerator.accumulate()/backward()/log(), and a tiny
autoregressive codec-token model standing in for VALL-E.  A minimal Accelerator
stub replaces the `accelerate` package so the file runs with torch only."""
import contextlib
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    """Single-process stand-in for accelerate.Accelerator."""

    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.is_main_process = True
        self.sync_gradients = True
        self._step = 0
        self.history = []

    @contextlib.contextmanager
    def accumulate(self, model):
        self._step += 1
        self.sync_gradients = self._step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss):
        (loss / self.gradient_accumulation_steps).backward()

    def clip_grad_norm_(self, params, max_norm):
        return torch.nn.utils.clip_grad_norm_(params, max_norm)

    def log(self, values, step=None):
        # trackers (tensorboard/wandb) store python scalars
        self.history.append({k: (v.item() if torch.is_tensor(v) else v) for k, v in values.items()})

    def wait_for_everyone(self):
        pass


class Logger:
    def __init__(self):
        self.lines = []

    def info(self, msg):
        self.lines.append(str(msg))


class Cfg:
    class train:
        gradient_accumulation_step = 1
        save_checkpoint_stride = [10_000]

        class adamw:
            lr = 5e-4

        class scheduler:
            warmup_steps = 4
            total_steps = 200
            min_lr = 1e-5


class BaseTrainer:
    def __init__(self, cfg=Cfg):
        self.cfg = cfg
        self.accelerator = Accelerator(cfg.train.gradient_accumulation_step)
        self.logger = Logger()
        self.epoch = 0
        self.step = 0
        self.batch_count = 0
        self.model = self._build_model()
        self.optimizer = torch.optim.AdamW(self.model.parameters(), lr=cfg.train.adamw.lr)
        self.train_dataloader = []
        self.valid_dataloader = []

    def _build_model(self):
        raise NotImplementedError

    def _forward_step(self, batch):
        raise NotImplementedError

    def get_lr(self, it):
        sch = self.cfg.train.scheduler
        if it < sch.warmup_steps:
            return self.cfg.train.adamw.lr * (it + 1) / sch.warmup_steps
        if it > sch.total_steps:
            return sch.min_lr
        decay_ratio = (it - sch.warmup_steps) / (sch.total_steps - sch.warmup_steps)
        coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
        return sch.min_lr + coeff * (self.cfg.train.adamw.lr - sch.min_lr)

    def train_loop(self, max_epoch=1):
        self.model.train()
        self.optimizer.zero_grad()
        train_loss = valid_loss = None
        while self.epoch < max_epoch:
            self.logger.info("Epoch {}: ".format(self.epoch))
            train_loss = self._train_epoch()
            self.logger.info("  |- Train/Loss: {:.6f}".format(train_loss))
            valid_loss = self._valid_epoch()
            self.logger.info("  |- Valid/Loss: {:.6f}".format(valid_loss))
            self.accelerator.log({"Epoch/Train Loss": train_loss, "Epoch/Valid Loss": valid_loss}, step=self.epoch)
            self.epoch += 1
        return train_loss, valid_loss

    def _train_epoch(self):
        self.model.train()
        epoch_sum_loss: float = 0.0
        ema_loss = None
        for batch in self.train_dataloader:
            lr = self.get_lr(self.step)
            for param_group in self.optimizer.param_groups:
                param_group["lr"] = lr

            with self.accelerator.accumulate(self.model):
                loss = self._train_step(batch)
                self.current_loss = loss.item()
                ema_loss = (0.99 * ema_loss + 0.01 * self.current_loss
                            if ema_loss is not None else self.current_loss)
                self.accelerator.backward(loss)
                if self.accelerator.sync_gradients:
                    self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
                self.optimizer.step()
                self.optimizer.zero_grad()
            self.batch_count += 1

            if self.accelerator.sync_gradients:
                if self.step % 100 == 0:
                    self.logger.info(f"EMA Loss: {ema_loss:.6f}")
                self.accelerator.log(
                    {"Step/Train Loss": loss, "Step/Learning Rate": self.optimizer.param_groups[0]["lr"]},
                    step=self.step)
                epoch_sum_loss += loss  # TLK101
                self.step += 1
        return epoch_sum_loss / len(self.train_dataloader) * self.cfg.train.gradient_accumulation_step

    @torch.inference_mode()
    def _valid_epoch(self):
        self.model.eval()
        epoch_sum_loss = 0.0
        for batch in self.valid_dataloader:
            batch_loss = self._valid_step(batch)
            epoch_sum_loss += batch_loss.item()
        return epoch_sum_loss / max(1, len(self.valid_dataloader))

    def _train_step(self, batch):
        return self._forward_step(batch)

    @torch.inference_mode()
    def _valid_step(self, batch):
        return self._forward_step(batch)


class TinyValleAR(nn.Module):
    """Phone-conditioned autoregressive model over first-quantizer codec tokens."""

    def __init__(self, n_phone=20, n_codec=32, d=32):
        super().__init__()
        self.phone_emb = nn.Embedding(n_phone, d)
        self.codec_emb = nn.Embedding(n_codec + 1, d)  # +1 = BOS
        self.rnn = nn.GRU(d, d, batch_first=True)
        self.head = nn.Linear(d, n_codec)
        self.bos = n_codec

    def forward(self, phone_ids, codec_ids):
        prompt = self.phone_emb(phone_ids).mean(1, keepdim=True)
        bos = torch.full_like(codec_ids[:, :1], self.bos)
        inp = self.codec_emb(torch.cat([bos, codec_ids[:, :-1]], 1)) + prompt
        out, _ = self.rnn(inp)
        logits = self.head(out)
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), codec_ids.reshape(-1))


class ValleTrainer(BaseTrainer):
    def _build_model(self):
        return TinyValleAR()

    def _forward_step(self, batch):
        return self.model(batch["phone_ids"], batch["target_ids"])


def make_batches(n, b=4, n_phone=20, n_codec=32, lp=8, lc=12):
    torch.manual_seed(0)
    return [{"phone_ids": torch.randint(0, n_phone, (b, lp)),
             "target_ids": torch.randint(0, n_codec, (b, lc))} for _ in range(n)]


def run(steps):
    trainer = ValleTrainer()
    trainer.train_dataloader = make_batches(steps)
    trainer.valid_dataloader = make_batches(2)
    t0 = time.time()
    train_loss, valid_loss = trainer.train_loop(max_epoch=1)
    trainer.logger.info("took %.2fs" % (time.time() - t0))
    return trainer, train_loss


if __name__ == "__main__":
    run(10)
