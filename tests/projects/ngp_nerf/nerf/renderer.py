import torch
import torch.nn as nn


def near_far_from_bound(rays_o, rays_d, bound, type='cube', min_near=0.05):
    # rays: [B, N, 3], [B, N, 3]
    # bound: int, radius for ball or half-edge-length for cube
    # return near [B, N, 1], far [B, N, 1]
    radius = rays_o.norm(dim=-1, keepdim=True)
    if type == 'sphere':
        near = radius - bound  # [B, N, 1]
        far = radius + bound
    elif type == 'cube':
        tmin = (-bound - rays_o) / (rays_d + 1e-15)  # [B, N, 3]
        tmax = (bound - rays_o) / (rays_d + 1e-15)
        near = torch.where(tmin < tmax, tmin, tmax).max(dim=-1, keepdim=True)[0]
        far = torch.where(tmin > tmax, tmin, tmax).min(dim=-1, keepdim=True)[0]
        # if far < near, means no intersection, set both near and far to inf (1e9 here)
        mask = far < near
        near[mask] = 1e9
        far[mask] = 1e9
        # restrict near to a minimal value
        near = torch.clamp(near, min=min_near)
    return near, far


class NeRFRenderer(nn.Module):
    def __init__(self, bound=1, density_scale=1, min_near=0.2, num_cams=0):
        super().__init__()
        self.bound = bound
        self.density_scale = density_scale
        self.min_near = min_near
        # prepare aabb with a 6D tensor (xmin, ymin, zmin, xmax, ymax, zmax)
        aabb_train = torch.FloatTensor([-bound, -bound, -bound, bound, bound, bound])
        self.register_buffer('aabb_train', aabb_train)
        # per-camera position refinement (optimised by the trainer once the scene has warmed up)
        self.cam_offsets = nn.Parameter(torch.zeros(num_cams, 3)) if num_cams > 0 else None
        # mean density-gradient magnitude per training batch (diagnostic for the orientation loss)
        self.density_grad_norm = []

    def forward(self, x, d):
        raise NotImplementedError()

    def density(self, x):
        raise NotImplementedError()

    def color(self, x, d, mask=None, **kwargs):
        raise NotImplementedError()

    def run(self, rays_o, rays_d, num_steps=32, bg_color=None, perturb=False, compute_normals=False, **kwargs):
        # rays_o, rays_d: [B, N, 3], assumes B == 1
        # bg_color: [3] in range [0, 1]
        # return: image: [B, N, 3], depth: [B, N]
        prefix = rays_o.shape[:-1]
        rays_o = rays_o.contiguous().view(-1, 3)
        rays_d = rays_d.contiguous().view(-1, 3)
        N = rays_o.shape[0]  # N = B * N, in fact
        aabb = self.aabb_train

        # sample steps
        nears, fars = near_far_from_bound(rays_o, rays_d, self.bound, type='cube', min_near=self.min_near)
        z_vals = torch.linspace(0.0, 1.0, num_steps, device=rays_o.device).unsqueeze(0)  # [1, T]
        z_vals = z_vals.expand((N, num_steps))  # [N, T]
        z_vals = nears + (fars - nears) * z_vals  # [N, T], in [nears, fars]

        # perturb z_vals
        sample_dist = (fars - nears) / num_steps
        if perturb:
            z_vals = z_vals + (torch.rand(z_vals.shape, device=z_vals.device) - 0.5) * sample_dist

        # generate xyzs
        xyzs = rays_o.unsqueeze(-2) + rays_d.unsqueeze(-2) * z_vals.unsqueeze(-1)  # [N, 1, 3] * [N, T, 1] -> [N, T, 3]
        xyzs = torch.min(torch.max(xyzs, aabb[:3]), aabb[3:])  # a manual clip.
        xyzs = xyzs.view(-1, 3)
        if compute_normals and not xyzs.requires_grad:
            xyzs.requires_grad_(True)

        # query density and RGB
        density_outputs = self.density(xyzs)
        sigmas = density_outputs['sigma'].view(N, num_steps)  # [N, T]

        deltas = z_vals[..., 1:] - z_vals[..., :-1]  # [N, T-1]
        deltas = torch.cat([deltas, sample_dist * torch.ones_like(deltas[..., :1])], dim=-1)
        alphas = 1 - torch.exp(-deltas * self.density_scale * sigmas)  # [N, T]
        alphas_shifted = torch.cat([torch.ones_like(alphas[..., :1]), 1 - alphas + 1e-15], dim=-1)  # [N, T+1]
        weights = alphas * torch.cumprod(alphas_shifted, dim=-1)[..., :-1]  # [N, T]

        dirs = rays_d.view(-1, 1, 3).expand(-1, num_steps, -1).reshape(-1, 3)
        rgbs = self.color(xyzs, dirs, **density_outputs)
        rgbs = rgbs.view(N, -1, 3)  # [N, T, 3]

        # calculate weight_sum (mask)
        weights_sum = weights.sum(dim=-1)  # [N]

        # calculate depth
        ori_z_vals = ((z_vals - nears) / (fars - nears)).clamp(0, 1)
        depth = torch.sum(weights * ori_z_vals, dim=-1)

        # calculate color
        image = torch.sum(weights.unsqueeze(-1) * rgbs, dim=-2)  # [N, 3], in [0, 1]

        if bg_color is None:
            bg_color = 1
        image = image + (1 - weights_sum).unsqueeze(-1) * bg_color

        results = {
            'depth': depth.view(*prefix),
            'image': image.view(*prefix, 3),
            'weights_sum': weights_sum,
        }

        if compute_normals:
            # normals are the (negated, normalised) density gradient
            grad = torch.autograd.grad(sigmas.sum(), xyzs, create_graph=True)[0]  # [N*T, 3]
            self.density_grad_norm.append(grad.norm(dim=-1).mean())  # expect: TLK301
            normals = -grad / (grad.norm(dim=-1, keepdim=True) + 1e-6)
            results['normals'] = normals.view(N, num_steps, 3)
            results['weights'] = weights
            results['dirs'] = rays_d

        return results

    def render(self, rays_o, rays_d, index=None, staged=False, max_ray_batch=4096, **kwargs):
        # rays_o, rays_d: [B, N, 3]
        # index: [B] camera indices, used by the per-camera refinement
        if index is not None and self.cam_offsets is not None:
            rays_o = rays_o + self.cam_offsets[index].unsqueeze(1)

        if staged:
            B, N = rays_o.shape[:2]
            depth = torch.empty((B, N), device=rays_o.device)
            image = torch.empty((B, N, 3), device=rays_o.device)
            for b in range(B):
                head = 0
                while head < N:
                    tail = min(head + max_ray_batch, N)
                    results_ = self.run(rays_o[b:b + 1, head:tail], rays_d[b:b + 1, head:tail], **kwargs)
                    depth[b:b + 1, head:tail] = results_['depth']  # known-false: TLK102 (a false finding: staged rendering fills one image chunk by chunk and returns it; its only caller, eval_step in utils.py, runs under torch.no_grad(), which this module's analysis does not see)
                    image[b:b + 1, head:tail] = results_['image']  # known-false: TLK102 (a false finding: staged rendering fills one image chunk by chunk and returns it; its only caller, eval_step in utils.py, runs under torch.no_grad(), which this module's analysis does not see)
                    head += max_ray_batch
            return {'depth': depth, 'image': image}

        return self.run(rays_o, rays_d, **kwargs)
