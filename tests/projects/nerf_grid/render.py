# Modelled on the rendering functions of run_nerf.py in yenchenlin/nerf-pytorch: raw2outputs
# composites the network's raw (rgb, density) along each ray, render_rays samples the points of
# a batch of rays, render_path renders every pose of a camera path. Reduced: one network (no
# hierarchical sampling), no chunking, rays passed in as (origins, directions).
import torch
import torch.nn.functional as F


def raw2outputs(raw, z_vals, rays_d):
    dists = z_vals[..., 1:] - z_vals[..., :-1]
    dists = torch.cat([dists, torch.full_like(dists[..., :1], 1e10)], -1)
    dists = dists * torch.norm(rays_d[..., None, :], dim=-1)
    rgb = torch.sigmoid(raw[..., :3])
    sigma = F.relu(raw[..., 3])
    alpha = 1.0 - torch.exp(-sigma * dists)
    weights = alpha * torch.cumprod(torch.cat([torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10], -1), -1)[:, :-1]
    rgb_map = torch.sum(weights[..., None] * rgb, -2)
    depth_map = torch.sum(weights * z_vals, -1)
    disp_map = 1.0 / torch.clamp(depth_map / torch.sum(weights, -1).clamp(min=1e-10), min=1e-10)
    return rgb_map, disp_map, sigma


def render_rays(network_fn, rays_o, rays_d, near=0.5, far=1.5, N_samples=8):
    t_vals = torch.linspace(0.0, 1.0, N_samples)
    z_vals = (near * (1.0 - t_vals) + far * t_vals).expand(rays_o.shape[0], N_samples)
    pts = rays_o[..., None, :] + rays_d[..., None, :] * z_vals[..., :, None]
    viewdirs = (rays_d / torch.norm(rays_d, dim=-1, keepdim=True))[:, None].expand(pts.shape)
    raw = network_fn(pts, viewdirs)
    rgb_map, disp_map, sigma = raw2outputs(raw, z_vals, rays_d)
    return rgb_map, disp_map, {"pts": pts, "sigma": sigma}


def render_path(network_fn, render_rays_per_pose):
    """Renders each pose's rays; returns the stacked colour and disparity maps."""
    rgbs = []
    disps = []
    for rays_o, rays_d in render_rays_per_pose:
        rgb, disp, _ = render_rays(network_fn, rays_o, rays_d)
        # Measured (8 rays per pose; 1, 4, 8 poses) for run_nerf.py's preview, which runs with grad
        # enabled: 58 -> 193 -> 373 autograd nodes, 53,568 -> 179,712 -> 347,904 B of saved tensors
        # (+42,048 B per pose); 0 under torch.no_grad() (the test-set render).
        rgbs.append(rgb.cpu())  # known-miss: TLK102 (rgb.cpu() is taken as detached, but .cpu() keeps the graph; appending rgb itself in this loop is reported)
        disps.append(disp.detach().cpu())  # clean: detached
    return torch.stack(rgbs, 0), torch.stack(disps, 0)
