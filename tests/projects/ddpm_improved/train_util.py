"""The training loop: microbatched forward/backward, importance-sampled timesteps, EMA copies of
the parameters, key-value logging and periodic samples."""
import functools

import torch as th
from torch.optim import AdamW

import logger
from nn import update_ema, zero_grad
from resample import LossAwareSampler, UniformSampler


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
        sample_interval,
        schedule_sampler=None,
        weight_decay=0.0,
        lr_anneal_steps=0,
    ):
        self.model = model
        self.diffusion = diffusion
        self.data = data
        self.batch_size = batch_size
        self.microbatch = microbatch if microbatch > 0 else batch_size
        self.lr = lr
        self.ema_rate = [ema_rate] if isinstance(ema_rate, float) else [float(x) for x in ema_rate.split(",")]
        self.log_interval = log_interval
        self.sample_interval = sample_interval
        self.schedule_sampler = schedule_sampler or UniformSampler(diffusion)
        self.weight_decay = weight_decay
        self.lr_anneal_steps = lr_anneal_steps

        self.step = 0
        self.master_params = list(self.model.parameters())
        self.opt = AdamW(self.master_params, lr=self.lr, weight_decay=self.weight_decay)
        self.ema_params = [[p.detach().clone() for p in self.master_params] for _ in range(len(self.ema_rate))]
        self.samples = []
        self.loss_curve = []

    def run_loop(self, max_steps):
        while self.step < max_steps and (not self.lr_anneal_steps or self.step < self.lr_anneal_steps):
            batch, cond = next(self.data)
            loss = self.run_step(batch, cond)
            self.loss_curve.append(loss)  # expect: TLK102
            if self.step % self.log_interval == 0:
                logger.dumpkvs()
            if self.step % self.sample_interval == 0:
                self.sample_grid()
            self.step += 1

    def run_step(self, batch, cond):
        loss = self.forward_backward(batch, cond)
        self.optimize_normal()
        self.log_step()
        return loss

    def forward_backward(self, batch, cond):
        zero_grad(self.master_params)
        for i in range(0, batch.shape[0], self.microbatch):
            micro = batch[i : i + self.microbatch]
            t, weights = self.schedule_sampler.sample(micro.shape[0], micro.device)

            compute_losses = functools.partial(self.diffusion.training_losses, self.model, micro, t)
            losses = compute_losses()

            if isinstance(self.schedule_sampler, LossAwareSampler):
                self.schedule_sampler.update_with_local_losses(t, losses["loss"])  # expect: TLK102 (LossSecondMomentResampler.update_with_all_losses in resample.py, reached through LossAwareSampler.update_with_local_losses, writes each attached per-sample loss into the tensor self._loss_history, which lives for the whole run; improved-diffusion passes losses['loss'].detach())

            loss = (losses["loss"] * weights).mean()
            log_loss_dict(self.diffusion, t, {k: v * weights for k, v in losses.items()})
            loss.backward()
        return loss

    def optimize_normal(self):
        self._log_grad_norm()
        self._anneal_lr()
        self.opt.step()
        for rate, params in zip(self.ema_rate, self.ema_params):
            update_ema(params, self.master_params, rate=rate)  # known-miss: TLK101 (update_ema in nn.py does targ.mul_(rate).add_(src, alpha=1 - rate) without no_grad or targ.detach(), so every EMA tensor becomes a running average chained to each step's parameters; reset_ema below makes the same call under no_grad)  # known-false: TLK103 (the same leak, reported as the state update_ema carries)

    def reset_ema(self):
        """After loading a checkpoint into the model, restart every EMA from its weights."""
        with th.no_grad():
            for params in self.ema_params:
                update_ema(params, self.master_params, rate=0.0)

    def _log_grad_norm(self):
        sqsum = 0.0
        for p in self.master_params:
            if p.grad is not None:
                sqsum += (p.grad ** 2).sum().item()
        logger.logkv_mean("grad_norm", sqsum ** 0.5)

    def _anneal_lr(self):
        if not self.lr_anneal_steps:
            return
        frac_done = self.step / self.lr_anneal_steps
        for param_group in self.opt.param_groups:
            param_group["lr"] = self.lr * (1 - frac_done)

    def log_step(self):
        logger.logkv("step", self.step)
        logger.logkv("samples", (self.step + 1) * self.batch_size)

    def sample_grid(self, n=4):
        self.model.eval()
        sample, intermediates = self.diffusion.p_sample_loop(self.model, (n, 3, 8, 8), keep_every=2)
        self.samples.append(sample)
        self.model.train()
        logger.logkv("sample_std", sample.std().item())
        return intermediates


def log_loss_dict(diffusion, ts, losses):
    for key, values in losses.items():
        logger.logkv_mean(key, values.mean())  # expect: TLK101 (each entry of the loss dict the loop hands over goes to logger.logkv_mean, and Logger.logkv_mean in logger.py folds it into a running mean in name2val of the module-level logger, cleared only by dumpkvs every log_interval steps: .item() here, per entry)
        # Log the quantiles (four quartiles, in particular).
        for sub_t, sub_loss in zip(ts.tolist(), values.detach().tolist()):
            quartile = int(4 * sub_t / diffusion.num_timesteps)
            logger.logkv_mean(f"{key}_q{quartile}", sub_loss)
