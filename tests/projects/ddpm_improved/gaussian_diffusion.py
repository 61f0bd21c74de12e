"""A Gaussian diffusion process (linear beta schedule, epsilon prediction, MSE loss)."""
import torch as th

from nn import mean_flat


def get_named_beta_schedule(schedule_name, num_diffusion_timesteps):
    if schedule_name == "linear":
        scale = 1000 / num_diffusion_timesteps
        return th.linspace(scale * 0.0001, scale * 0.02, num_diffusion_timesteps, dtype=th.float64)
    raise NotImplementedError(f"unknown beta schedule: {schedule_name}")


def _extract_into_tensor(arr, timesteps, broadcast_shape):
    res = arr.to(device=timesteps.device)[timesteps].float()
    while len(res.shape) < len(broadcast_shape):
        res = res[..., None]
    return res.expand(broadcast_shape)


class GaussianDiffusion:
    def __init__(self, *, betas):
        self.betas = betas
        self.num_timesteps = int(betas.shape[0])
        alphas = 1.0 - betas
        self.alphas_cumprod = th.cumprod(alphas, dim=0)
        self.alphas_cumprod_prev = th.cat([th.ones(1, dtype=th.float64), self.alphas_cumprod[:-1]])
        self.sqrt_alphas_cumprod = th.sqrt(self.alphas_cumprod)
        self.sqrt_one_minus_alphas_cumprod = th.sqrt(1.0 - self.alphas_cumprod)
        self.sqrt_recip_alphas_cumprod = th.sqrt(1.0 / self.alphas_cumprod)
        self.sqrt_recipm1_alphas_cumprod = th.sqrt(1.0 / self.alphas_cumprod - 1)
        self.posterior_variance = betas * (1.0 - self.alphas_cumprod_prev) / (1.0 - self.alphas_cumprod)
        self.posterior_mean_coef1 = betas * th.sqrt(self.alphas_cumprod_prev) / (1.0 - self.alphas_cumprod)
        self.posterior_mean_coef2 = (1.0 - self.alphas_cumprod_prev) * th.sqrt(alphas) / (1.0 - self.alphas_cumprod)

    def q_sample(self, x_start, t, noise=None):
        if noise is None:
            noise = th.randn_like(x_start)
        return (
            _extract_into_tensor(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start
            + _extract_into_tensor(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise
        )

    def p_mean_variance(self, model, x, t):
        eps = model(x, t)
        pred_xstart = (
            _extract_into_tensor(self.sqrt_recip_alphas_cumprod, t, x.shape) * x
            - _extract_into_tensor(self.sqrt_recipm1_alphas_cumprod, t, x.shape) * eps
        ).clamp(-1, 1)
        mean = (
            _extract_into_tensor(self.posterior_mean_coef1, t, x.shape) * pred_xstart
            + _extract_into_tensor(self.posterior_mean_coef2, t, x.shape) * x
        )
        variance = _extract_into_tensor(self.posterior_variance, t, x.shape)
        return mean, variance, pred_xstart

    def p_sample(self, model, x, t):
        mean, variance, pred_xstart = self.p_mean_variance(model, x, t)
        noise = th.randn_like(x)
        nonzero_mask = (t != 0).float().view(-1, *([1] * (len(x.shape) - 1)))
        return {"sample": mean + nonzero_mask * th.sqrt(variance) * noise, "pred_xstart": pred_xstart}

    @th.no_grad()
    def p_sample_loop_progressive(self, model, shape, device="cpu"):
        img = th.randn(*shape, device=device)
        for i in reversed(range(self.num_timesteps)):
            t = th.tensor([i] * shape[0], device=device)
            out = self.p_sample(model, img, t)
            yield out
            img = out["sample"]

    def p_sample_loop(self, model, shape, device="cpu", keep_every=None):
        final, intermediates = None, []
        for step, out in enumerate(self.p_sample_loop_progressive(model, shape, device=device)):
            final = out
            if keep_every and step % keep_every == 0:
                intermediates.append(out["pred_xstart"])
        return final["sample"], intermediates

    def training_losses(self, model, x_start, t, noise=None):
        if noise is None:
            noise = th.randn_like(x_start)
        x_t = self.q_sample(x_start, t, noise=noise)
        model_output = model(x_t, t)
        terms = {"mse": mean_flat((noise - model_output) ** 2)}
        terms["loss"] = terms["mse"]
        return terms
