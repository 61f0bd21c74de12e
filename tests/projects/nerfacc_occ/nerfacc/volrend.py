from typing import Callable, Dict, Optional, Tuple

import torch
from torch import Tensor

from .scan import exclusive_sum


def rendering(
    # ray marching results
    t_starts: Tensor,
    t_ends: Tensor,
    ray_indices: Optional[Tensor] = None,
    n_rays: Optional[int] = None,
    # radiance field
    rgb_sigma_fn: Optional[Callable] = None,
    # rendering options
    render_bkgd: Optional[Tensor] = None,
) -> Tuple[Tensor, Tensor, Tensor, Dict]:
    """Render the rays through the radience field defined by `rgb_sigma_fn` (packed samples).

    Returns colors (n_rays, 3), opacities (n_rays, 1), depths (n_rays, 1) and extras
    (``weights``, ``alphas``, ``trans``, ``sigmas``, ``rgbs`` of every sample).
    """
    rgbs, sigmas = rgb_sigma_fn(t_starts, t_ends, ray_indices)
    assert rgbs.shape[-1] == 3, "rgbs must have 3 channels, got {}".format(rgbs.shape)
    assert sigmas.shape == t_starts.shape, "sigmas must have shape of (N,)! Got {}".format(sigmas.shape)

    # Rendering: compute weights.
    weights, trans, alphas = render_weight_from_density(t_starts, t_ends, sigmas, ray_indices=ray_indices,
                                                        n_rays=n_rays)
    extras = {"weights": weights, "alphas": alphas, "trans": trans, "sigmas": sigmas, "rgbs": rgbs}

    # Rendering: accumulate rgbs, opacities, and depths along the rays.
    colors = accumulate_along_rays(weights, values=rgbs, ray_indices=ray_indices, n_rays=n_rays)
    opacities = accumulate_along_rays(weights, values=None, ray_indices=ray_indices, n_rays=n_rays)
    depths = accumulate_along_rays(weights, values=(t_starts + t_ends)[..., None] / 2.0, ray_indices=ray_indices,
                                   n_rays=n_rays)
    depths = depths / opacities.clamp_min(torch.finfo(rgbs.dtype).eps)

    # Background composition.
    if render_bkgd is not None:
        colors = colors + render_bkgd * (1.0 - opacities)

    return colors, opacities, depths, extras


def render_transmittance_from_density(t_starts, t_ends, sigmas, ray_indices=None, n_rays=None):
    """Compute transmittance :math:`T_i` from density :math:`\\sigma_i`."""
    sigmas_dt = sigmas * (t_ends - t_starts)
    trans = torch.exp(-exclusive_sum(sigmas_dt, ray_indices, n_rays))
    alphas = 1.0 - torch.exp(-sigmas_dt)
    return trans, alphas


def render_weight_from_density(t_starts, t_ends, sigmas, ray_indices=None, n_rays=None):
    """Compute rendering weights :math:`w_i = T_i (1 - exp(-\\sigma_i \\delta_i))` from the density."""
    trans, alphas = render_transmittance_from_density(t_starts, t_ends, sigmas, ray_indices, n_rays)
    weights = trans * alphas
    return weights, trans, alphas


def accumulate_along_rays(weights: Tensor, values: Optional[Tensor] = None, ray_indices: Optional[Tensor] = None,
                          n_rays: Optional[int] = None) -> Tensor:
    """Accumulate volumetric values along the ray."""
    if values is None:
        src = weights[..., None]
    else:
        assert values.dim() == weights.dim() + 1
        src = weights[..., None] * values
    outputs = torch.zeros((n_rays, src.shape[-1]), device=src.device, dtype=src.dtype)
    return outputs.index_add(0, ray_indices, src)
