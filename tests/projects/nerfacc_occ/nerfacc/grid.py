from typing import Tuple

import torch
from torch import Tensor


@torch.no_grad()
def ray_aabb_intersect(rays_o: Tensor, rays_d: Tensor, aabbs: Tensor, near_plane: float = -float("inf"),
                       far_plane: float = float("inf"), miss_value: float = float("inf")
                       ) -> Tuple[Tensor, Tensor, Tensor]:
    """Ray-AABB intersection. Returns t_mins, t_maxs (n_rays, m) and hits (n_rays, m)."""
    inv_d = 1.0 / torch.where(rays_d.abs() < 1e-10, torch.full_like(rays_d, 1e-10), rays_d)
    t0 = (aabbs[None, :, :3] - rays_o[:, None, :]) * inv_d[:, None, :]
    t1 = (aabbs[None, :, 3:] - rays_o[:, None, :]) * inv_d[:, None, :]
    t_mins = torch.minimum(t0, t1).amax(dim=-1).clamp(min=near_plane)
    t_maxs = torch.maximum(t0, t1).amin(dim=-1).clamp(max=far_plane)
    hits = t_maxs > t_mins
    t_mins = torch.where(hits, t_mins, torch.full_like(t_mins, miss_value))
    t_maxs = torch.where(hits, t_maxs, torch.full_like(t_maxs, miss_value))
    return t_mins, t_maxs, hits


def _enlarge_aabb(aabb, factor: float) -> Tensor:
    center = (aabb[:3] + aabb[3:]) / 2
    extent = (aabb[3:] - aabb[:3]) / 2
    return torch.cat([center - extent * factor, center + extent * factor])


def _meshgrid3d(res: Tensor, device="cpu") -> Tensor:
    """Create 3D grid coordinates."""
    assert len(res) == 3
    res = res.tolist()
    return torch.stack(
        torch.meshgrid([torch.arange(res[0], dtype=torch.long), torch.arange(res[1], dtype=torch.long),
                        torch.arange(res[2], dtype=torch.long)], indexing="ij"),
        dim=-1,
    ).to(device)
