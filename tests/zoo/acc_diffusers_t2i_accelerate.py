# Source: https://github.com/huggingface/diffusers/blob/main/examples/text_to_image/train_text_to_image.py
# Shape: The gathered per-step loss is summed into train_loss without .item(), and train_loss is handed to accelerator.log(), whose tracker keeps every logged value; each logged train_loss holds the gather/repeat/mean graph of that step's loss, so one graph per optimizer step is kept for the whole run.
# Verdict: leak
import contextlib
import copy
import math
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------------------
# minimal stand-ins for accelerate.Accelerator and its trackers (single process)
# --------------------------------------------------------------------------------------
class InMemoryTracker:
    """Like a JSON/CSV GeneralTracker: keeps every logged row."""

    name = "memory"

    def __init__(self):
        self.rows = []

    def log(self, values, step=None):
        self.rows.append({"step": step, **values})


class Accelerator:
    def __init__(self, gradient_accumulation_steps=1, mixed_precision="no", log_with=None):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.mixed_precision = mixed_precision
        self.trackers = [InMemoryTracker()] if log_with else []
        self.step = 0
        self.sync_gradients = True
        self.is_main_process = True
        self.num_processes = 1
        self.device = torch.device("cpu")

    def prepare(self, *objs):
        return objs if len(objs) > 1 else objs[0]

    @contextlib.contextmanager
    def accumulate(self, model):
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss, **kwargs):
        (loss / self.gradient_accumulation_steps).backward(**kwargs)

    def gather(self, tensor):
        # all_gather over a world of size 1: the tensor itself (autograd-connected)
        return tensor

    def clip_grad_norm_(self, parameters, max_norm):
        return torch.nn.utils.clip_grad_norm_(parameters, max_norm)

    def log(self, values, step=None):
        for tracker in self.trackers:
            tracker.log(values, step=step)

    def init_trackers(self, project_name, config=None):
        pass


# --------------------------------------------------------------------------------------
# diffusers-style pieces: noise scheduler, EMA, a tiny conditional UNet
# --------------------------------------------------------------------------------------
class DDPMScheduler:
    def __init__(self, num_train_timesteps=1000, beta_start=0.00085, beta_end=0.012, prediction_type="epsilon"):
        betas = torch.linspace(beta_start ** 0.5, beta_end ** 0.5, num_train_timesteps) ** 2
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.config = SimpleNamespace(num_train_timesteps=num_train_timesteps, prediction_type=prediction_type)

    def add_noise(self, original_samples, noise, timesteps):
        sqrt_alpha_prod = self.alphas_cumprod[timesteps].sqrt().view(-1, 1, 1, 1)
        sqrt_one_minus_alpha_prod = (1 - self.alphas_cumprod[timesteps]).sqrt().view(-1, 1, 1, 1)
        return sqrt_alpha_prod * original_samples + sqrt_one_minus_alpha_prod * noise

    def get_velocity(self, sample, noise, timesteps):
        sqrt_alpha_prod = self.alphas_cumprod[timesteps].sqrt().view(-1, 1, 1, 1)
        sqrt_one_minus_alpha_prod = (1 - self.alphas_cumprod[timesteps]).sqrt().view(-1, 1, 1, 1)
        return sqrt_alpha_prod * noise - sqrt_one_minus_alpha_prod * sample


class EMAModel:
    """Exponential Moving Average of models weights (as diffusers.training_utils.EMAModel)."""

    def __init__(self, parameters, decay=0.9999, min_decay=0.0, update_after_step=0):
        parameters = list(parameters)
        self.shadow_params = [p.clone().detach() for p in parameters]
        self.decay = decay
        self.min_decay = min_decay
        self.update_after_step = update_after_step
        self.optimization_step = 0

    def get_decay(self, optimization_step):
        step = max(0, optimization_step - self.update_after_step - 1)
        if step <= 0:
            return 0.0
        cur_decay_value = (1 + step) / (10 + step)
        return max(min(cur_decay_value, self.decay), self.min_decay)

    @torch.no_grad()
    def step(self, parameters):
        parameters = list(parameters)
        self.optimization_step += 1
        one_minus_decay = 1 - self.get_decay(self.optimization_step)
        for s_param, param in zip(self.shadow_params, parameters):
            if param.requires_grad:
                s_param.sub_(one_minus_decay * (s_param - param))
            else:
                s_param.copy_(param)

    def copy_to(self, parameters):
        for s_param, param in zip(self.shadow_params, parameters):
            param.data.copy_(s_param.to(param.device).data)


class TinyConditionalUNet(nn.Module):
    def __init__(self, in_channels=4, base=32, cross_attention_dim=32):
        super().__init__()
        self.time_proj = nn.Sequential(nn.Linear(32, base), nn.SiLU(), nn.Linear(base, base))
        self.text_proj = nn.Linear(cross_attention_dim, base)
        self.conv_in = nn.Conv2d(in_channels, base, 3, padding=1)
        self.down = nn.Conv2d(base, base * 2, 3, stride=2, padding=1)
        self.mid = nn.Conv2d(base * 2, base * 2, 3, padding=1)
        self.up = nn.ConvTranspose2d(base * 2, base, 4, stride=2, padding=1)
        self.conv_out = nn.Conv2d(base * 2, in_channels, 3, padding=1)

    @staticmethod
    def timestep_embedding(timesteps, dim=32):
        half = dim // 2
        freqs = torch.exp(-math.log(10000.0) * torch.arange(half, dtype=torch.float32) / half)
        args = timesteps.float()[:, None] * freqs[None]
        return torch.cat([torch.cos(args), torch.sin(args)], dim=-1)

    def forward(self, sample, timestep, encoder_hidden_states, return_dict=False):
        emb = self.time_proj(self.timestep_embedding(timestep))
        ctx = self.text_proj(encoder_hidden_states.mean(1))
        h0 = F.silu(self.conv_in(sample) + (emb + ctx)[:, :, None, None])
        h1 = F.silu(self.down(h0))
        h1 = F.silu(self.mid(h1))
        h2 = F.silu(self.up(h1))
        out = self.conv_out(torch.cat([h0, h2], dim=1))
        return (out,)


class FrozenTextEncoder(nn.Module):
    def __init__(self, vocab_size=1000, dim=32):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, dim)

    def forward(self, input_ids, return_dict=False):
        return (self.embed(input_ids),)


def make_batches(num_batches, train_batch_size=4, resolution=16, seed=0):
    """Stand-in for the collated dataset: latents ("pixel_values" already VAE-encoded) + captions."""
    g = torch.Generator().manual_seed(seed)
    for _ in range(num_batches):
        yield {
            "pixel_values": torch.randn(train_batch_size, 4, resolution, resolution, generator=g),
            "input_ids": torch.randint(0, 1000, (train_batch_size, 12), generator=g),
        }


def parse_args(**overrides):
    args = SimpleNamespace(
        train_batch_size=4, gradient_accumulation_steps=2, learning_rate=1e-4, max_grad_norm=1.0,
        use_ema=True, noise_offset=0.0, snr_gamma=None, max_train_steps=100, num_train_epochs=1,
        prediction_type=None, report_to="memory", seed=0, checkpointing_steps=10_000)
    for k, v in overrides.items():
        setattr(args, k, v)
    return args


def run(steps):
    args = parse_args(max_train_steps=steps)
    torch.manual_seed(args.seed)
    accelerator = Accelerator(gradient_accumulation_steps=args.gradient_accumulation_steps,
                              log_with=args.report_to)

    noise_scheduler = DDPMScheduler()
    text_encoder = FrozenTextEncoder()
    text_encoder.requires_grad_(False)
    unet = TinyConditionalUNet()

    if args.use_ema:
        ema_unet = EMAModel(unet.parameters())

    optimizer = torch.optim.AdamW(unet.parameters(), lr=args.learning_rate)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 5))
    train_dataloader = make_batches(steps * args.gradient_accumulation_steps, args.train_batch_size)
    unet, optimizer, lr_scheduler = accelerator.prepare(unet, optimizer, lr_scheduler)
    accelerator.init_trackers("text2image-fine-tune", config=vars(args))

    global_step = 0
    for epoch in range(args.num_train_epochs):
        unet.train()
        train_loss = 0.0
        for step, batch in enumerate(train_dataloader):
            with accelerator.accumulate(unet):
                latents = batch["pixel_values"] * 0.18215
                noise = torch.randn_like(latents)
                if args.noise_offset:
                    noise += args.noise_offset * torch.randn((latents.shape[0], latents.shape[1], 1, 1))
                bsz = latents.shape[0]
                timesteps = torch.randint(0, noise_scheduler.config.num_train_timesteps, (bsz,)).long()
                noisy_latents = noise_scheduler.add_noise(latents, noise, timesteps)
                encoder_hidden_states = text_encoder(batch["input_ids"], return_dict=False)[0]

                if noise_scheduler.config.prediction_type == "epsilon":
                    target = noise
                elif noise_scheduler.config.prediction_type == "v_prediction":
                    target = noise_scheduler.get_velocity(latents, noise, timesteps)
                else:
                    raise ValueError(f"Unknown prediction type {noise_scheduler.config.prediction_type}")

                model_pred = unet(noisy_latents, timesteps, encoder_hidden_states, return_dict=False)[0]
                loss = F.mse_loss(model_pred.float(), target.float(), reduction="mean")

                # Gather the losses across all processes for logging (if we use distributed training).
                avg_loss = accelerator.gather(loss.repeat(args.train_batch_size)).mean()
                train_loss += avg_loss / args.gradient_accumulation_steps  # TLK101

                # Backpropagate
                accelerator.backward(loss)
                if accelerator.sync_gradients:
                    accelerator.clip_grad_norm_(unet.parameters(), args.max_grad_norm)
                    optimizer.step()
                    lr_scheduler.step()
                    optimizer.zero_grad()

            # Checks if the accelerator has performed an optimization step behind the scenes
            if accelerator.sync_gradients:
                if args.use_ema:
                    ema_unet.step(unet.parameters())
                global_step += 1
                accelerator.log({"train_loss": train_loss}, step=global_step)
                train_loss = 0.0

            logs = {"step_loss": loss.detach().item(), "lr": lr_scheduler.get_last_lr()[0]}
            if global_step >= args.max_train_steps:
                break

    if args.use_ema:
        ema_unet.copy_to(unet.parameters())
    return {"unet": unet, "ema": ema_unet if args.use_ema else None,
            "history": accelerator.trackers[0].rows, "last_logs": logs}


if __name__ == "__main__":
    run(10)
