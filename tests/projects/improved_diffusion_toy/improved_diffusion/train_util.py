import copy
import functools

import numpy as np
import torch as th
from torch.optim import AdamW

from . import logger
from .nn import update_ema
from .resample import LossAwareSampler, UniformSampler


class TrainLoop:
    def __init__(
        self,
        *,
        model,
        diffusion,
        data,
        batch_size,
        microbatch,
        lr,
        ema_rate,
        log_interval,
        save_interval,
        schedule_sampler=None,
        weight_decay=0.0,
        lr_anneal_steps=0,
        spike_factor=3.0,
        loss_ema_decay=0.99,
    ):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.batch_size = batch_size
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.lr = lr
        self.ema_rate = (
            [ema_rate]
            if isinstance(ema_rate, float)
            else [float(x) for x in ema_rate.split(",")]
        )
        self.log_interval = log_interval
        self.save_interval = save_interval
        self.schedule_sampler = schedule_sampler or UniformSampler(diffusion)
        self.weight_decay = weight_decay
        self.lr_anneal_steps = lr_anneal_steps
        # loss-spike guard: skip the update when the batch loss jumps far above
        # its running average (diverging runs are otherwise hard to recover)
        self.spike_factor = spike_factor
        self.loss_ema_decay = loss_ema_decay
        self.loss_ema = None
        self.skipped_steps = 0

        self.step = 0
        self.resume_step = 0
        self.global_batch = self.batch_size

        self.model_params = list(self.model.parameters())
        self.master_params = self.model_params

        self.opt = AdamW(self.master_params, lr=self.lr, weight_decay=self.weight_decay)
        self.ema_params = [
            copy.deepcopy(self.master_params) for _ in range(len(self.ema_rate))
        ]
        self.ddp_model = self.model

    def run_loop(self):
        while (
            not self.lr_anneal_steps
            or self.step + self.resume_step < self.lr_anneal_steps
        ):
            batch, cond = next(self.data)
            self.run_step(batch, cond)
            if self.step % self.log_interval == 0:
                logger.dumpkvs()
            if self.step % self.save_interval == 0:
                self.save()
            self.step += 1

    def run_step(self, batch, cond):
        batch_loss = self.forward_backward(batch, cond)
        if self._is_spike(batch_loss):
            self.skipped_steps += 1
            logger.logkv("skipped_steps", self.skipped_steps)
        else:
            self.optimize_normal()
        self.log_step()

    def forward_backward(self, batch, cond):
        self.opt.zero_grad(set_to_none=True)
        total = 0.0
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            micro_cond = {k: v[i : i + self.microbatch] for k, v in cond.items()}
            t, weights = self.schedule_sampler.sample(micro.shape[0], micro.device)

            compute_losses = functools.partial(
                self.diffusion.training_losses,
                self.ddp_model,
                micro,
                t,
                model_kwargs=micro_cond,
            )
            losses = compute_losses()

            if isinstance(self.schedule_sampler, LossAwareSampler):
                self.schedule_sampler.update_with_local_losses(t, losses["loss"])  # known-miss: TLK102 (reported where the sampler keeps it, resample.py:96)

            loss = (losses["loss"] * weights).mean()
            log_loss_dict(
                self.diffusion, t, {k: v * weights for k, v in losses.items()}
            )
            scale = micro.shape[0] / batch.shape[0]
            (loss * scale).backward()
            total = total + loss * scale
        return total

    def _is_spike(self, loss):
        if self.loss_ema is None:
            self.loss_ema = loss.detach()
            return False
        spike = loss.item() > self.spike_factor * self.loss_ema.item()
        if not spike:
            self.loss_ema = self.loss_ema_decay * self.loss_ema + (1 - self.loss_ema_decay) * loss  # expect: TLK103
        logger.logkv("loss_ema", self.loss_ema.item())
        return spike

    def optimize_normal(self):
        self._log_grad_norm()
        self._anneal_lr()
        self.opt.step()
        for rate, params in zip(self.ema_rate, self.ema_params):
            update_ema(params, self.master_params, rate=rate)

    def _log_grad_norm(self):
        sqsum = 0.0
        for p in self.master_params:
            if p.grad is not None:
                sqsum = sqsum + (p.grad ** 2).sum()
        logger.logkv_mean("grad_norm", sqsum ** 0.5)

    def _anneal_lr(self):
        if not self.lr_anneal_steps:
            return
        frac_done = (self.step + self.resume_step) / self.lr_anneal_steps
        lr = self.lr * (1 - frac_done)
        for param_group in self.opt.param_groups:
            param_group["lr"] = lr

    def log_step(self):
        logger.logkv("step", self.step + self.resume_step)
        logger.logkv("samples", (self.step + self.resume_step + 1) * self.global_batch)

    def save(self):
        # checkpoints are only kept in memory in this trimmed version
        self.last_checkpoint = {
            "model": {k: v.detach().clone() for k, v in self.model.state_dict().items()},
            "ema": [[p.detach().clone() for p in params] for params in self.ema_params],
            "step": self.step + self.resume_step,
        }


def log_loss_dict(diffusion, ts, losses):
    for key, values in losses.items():
        logger.logkv_mean(key, values.mean())  # expect: TLK101
        # Log the quantiles (four quartiles, in particular).
        for sub_t, sub_loss in zip(ts.cpu().numpy(), values.detach().cpu().numpy()):
            quartile = int(4 * sub_t / diffusion.num_timesteps)
            logger.logkv_mean(f"{key}_q{quartile}", sub_loss)
