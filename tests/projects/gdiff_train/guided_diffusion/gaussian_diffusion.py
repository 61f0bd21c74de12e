"""
Gaussian diffusion utilities (epsilon prediction, fixed variances), after
the ``GaussianDiffusion`` class of improved/guided diffusion.
"""

import math

import torch as th

from .losses import InputGradientPenalty
from .nn import mean_flat


def get_named_beta_schedule(schedule_name, num_diffusion_timesteps):
    if schedule_name == "linear":
        scale = 1000 / num_diffusion_timesteps
        return th.linspace(
            scale * 0.0001, scale * 0.02, num_diffusion_timesteps, dtype=th.float64
        )
    elif schedule_name == "cosine":
        steps = th.arange(num_diffusion_timesteps + 1, dtype=th.float64)
        alphas_cumprod = th.cos((steps / num_diffusion_timesteps + 0.008) / 1.008 * math.pi / 2) ** 2
        betas = 1 - alphas_cumprod[1:] / alphas_cumprod[:-1]
        return betas.clamp(max=0.999)
    raise NotImplementedError(f"unknown beta schedule: {schedule_name}")


def _extract_into_tensor(arr, timesteps, broadcast_shape):
    res = arr.to(device=timesteps.device)[timesteps].float()
    while len(res.shape) < len(broadcast_shape):
        res = res[..., None]
    return res.expand(broadcast_shape)


class GaussianDiffusion:
    def __init__(self, *, betas, jac_reg_weight=0.0):
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
        self.jac_penalty = InputGradientPenalty(jac_reg_weight) if jac_reg_weight > 0 else None

    def q_sample(self, x_start, t, noise=None):
        if noise is None:
            noise = th.randn_like(x_start)
        return (
            _extract_into_tensor(self.sqrt_alphas_cumprod, t, x_start.shape) * x_start
            + _extract_into_tensor(self.sqrt_one_minus_alphas_cumprod, t, x_start.shape) * noise
        )

    def _predict_xstart_from_eps(self, x_t, t, eps):
        return (
            _extract_into_tensor(self.sqrt_recip_alphas_cumprod, t, x_t.shape) * x_t
            - _extract_into_tensor(self.sqrt_recipm1_alphas_cumprod, t, x_t.shape) * eps
        )

    def training_losses(self, model, x_start, t, model_kwargs=None, noise=None):
        """
        Compute training losses for a single timestep.

        :return: a dict with the key "loss" containing a tensor of shape [N].
                 Some mean or variance settings may also have other keys.
        """
        if model_kwargs is None:
            model_kwargs = {}
        if noise is None:
            noise = th.randn_like(x_start)
        x_t = self.q_sample(x_start, t, noise=noise)
        if self.jac_penalty is not None:
            x_t = x_t.detach().requires_grad_(True)

        terms = {}
        model_output = model(x_t, t, **model_kwargs)
        terms["mse"] = mean_flat((noise - model_output) ** 2)
        terms["loss"] = terms["mse"]
        if self.jac_penalty is not None:
            terms["jac"] = self.jac_penalty(model_output, x_t)  # known-false: TLK301 (the author marked this leak at another line)
            terms["loss"] = terms["loss"] + terms["jac"]
        return terms

    @th.no_grad()
    def p_sample_loop(self, model, shape, noise=None):
        img = noise if noise is not None else th.randn(*shape)
        for i in reversed(range(self.num_timesteps)):
            t = th.full((shape[0],), i, dtype=th.long)
            eps = model(img, t)
            pred_xstart = self._predict_xstart_from_eps(img, t, eps).clamp(-1, 1)
            mean = (
                _extract_into_tensor(self.posterior_mean_coef1, t, img.shape) * pred_xstart
                + _extract_into_tensor(self.posterior_mean_coef2, t, img.shape) * img
            )
            if i > 0:
                var = _extract_into_tensor(self.posterior_variance, t, img.shape)
                img = mean + th.sqrt(var) * th.randn_like(img)
            else:
                img = mean
        return img
