# Source: https://github.com/lioryariv/volsdf/blob/5cbedd7ba30d2e839e94802196ee0c14094be93f/code/model/network.py
# Shape: VolSDFNetwork.forward renders a normal map from the create_graph=True SDF gradients during training, and the runner logs its smoothness as a tensor every iteration, so each step's double-backward branch (normals, weights) stays alive in the log.
# Verdict: leak
import math
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F


class ImplicitNetwork(nn.Module):
    def __init__(self, feature_vector_size=16, sdf_bounding_sphere=1.0, d_in=3, d_out=1, dims=(32, 32, 32),
                 bias=0.6, sphere_scale=1.0):
        super().__init__()
        self.sdf_bounding_sphere = sdf_bounding_sphere
        self.sphere_scale = sphere_scale
        dims = [d_in] + list(dims) + [d_out + feature_vector_size]
        self.num_layers = len(dims)
        for l in range(0, self.num_layers - 1):
            lin = nn.Linear(dims[l], dims[l + 1])
            if l == self.num_layers - 2:
                torch.nn.init.normal_(lin.weight, mean=math.sqrt(math.pi) / math.sqrt(dims[l]), std=0.0001)
                torch.nn.init.constant_(lin.bias, -bias)
            else:
                torch.nn.init.constant_(lin.bias, 0.0)
                torch.nn.init.normal_(lin.weight, 0.0, math.sqrt(2) / math.sqrt(dims[l + 1]))
            setattr(self, "lin" + str(l), lin)
        self.softplus = nn.Softplus(beta=100)

    def forward(self, input):
        x = input
        for l in range(0, self.num_layers - 1):
            x = getattr(self, "lin" + str(l))(x)
            if l < self.num_layers - 2:
                x = self.softplus(x)
        return x

    def gradient(self, x):
        x.requires_grad_(True)
        y = self.forward(x)[:, :1]
        d_output = torch.ones_like(y, requires_grad=False)
        return torch.autograd.grad(outputs=y, inputs=x, grad_outputs=d_output,
                                   create_graph=True, retain_graph=True, only_inputs=True)[0]

    def get_outputs(self, x):
        x.requires_grad_(True)
        output = self.forward(x)
        sdf = output[:, :1]
        if self.sdf_bounding_sphere > 0.0:
            sphere_sdf = self.sphere_scale * (self.sdf_bounding_sphere - x.norm(2, 1, keepdim=True))
            sdf = torch.minimum(sdf, sphere_sdf)
        feature_vectors = output[:, 1:]
        d_output = torch.ones_like(sdf, requires_grad=False)
        gradients = torch.autograd.grad(outputs=sdf, inputs=x, grad_outputs=d_output,
                                        create_graph=True, retain_graph=True, only_inputs=True)[0]
        return sdf, feature_vectors, gradients


class RenderingNetwork(nn.Module):
    def __init__(self, feature_vector_size=16, dims=(32, 32)):
        super().__init__()
        dims = [9 + feature_vector_size] + list(dims) + [3]
        self.layers = nn.ModuleList(nn.Linear(dims[i], dims[i + 1]) for i in range(len(dims) - 1))

    def forward(self, points, normals, view_dirs, feature_vectors):
        x = torch.cat([points, view_dirs, normals, feature_vectors], dim=-1)
        for i, lin in enumerate(self.layers):
            x = lin(x)
            if i < len(self.layers) - 1:
                x = F.relu(x)
        return torch.sigmoid(x)


class LaplaceDensity(nn.Module):
    def __init__(self, beta=0.1, beta_min=0.0001):
        super().__init__()
        self.beta = nn.Parameter(torch.tensor(beta))
        self.beta_min = beta_min

    def forward(self, sdf):
        beta = self.beta.abs() + self.beta_min
        alpha = 1 / beta
        return alpha * (0.5 + 0.5 * sdf.sign() * torch.expm1(-sdf.abs() / beta))


class VolSDFNetwork(nn.Module):
    def __init__(self, n_samples=32, scene_bounding_sphere=1.0):
        super().__init__()
        self.n_samples = n_samples
        self.scene_bounding_sphere = scene_bounding_sphere
        self.implicit_network = ImplicitNetwork()
        self.rendering_network = RenderingNetwork()
        self.density = LaplaceDensity()

    def forward(self, cam_loc, ray_dirs):
        z_vals = torch.linspace(0.5, 3.5, self.n_samples).expand(ray_dirs.shape[0], self.n_samples)
        points = cam_loc.unsqueeze(1) + z_vals.unsqueeze(2) * ray_dirs.unsqueeze(1)
        points_flat = points.reshape(-1, 3)
        dirs_flat = ray_dirs.unsqueeze(1).repeat(1, self.n_samples, 1).reshape(-1, 3)

        sdf, feature_vectors, gradients = self.implicit_network.get_outputs(points_flat)
        rgb_flat = self.rendering_network(points_flat, gradients, dirs_flat, feature_vectors)
        rgb = rgb_flat.reshape(-1, self.n_samples, 3)
        weights = self.volume_rendering(z_vals, sdf)
        output = {'rgb_values': torch.sum(weights.unsqueeze(-1) * rgb, 1)}

        eikonal_points = torch.empty(ray_dirs.shape[0], 3).uniform_(-self.scene_bounding_sphere,
                                                                     self.scene_bounding_sphere)
        output['grad_theta'] = self.implicit_network.gradient(eikonal_points)

        # normal map for the tensorboard panel
        normals = gradients / gradients.norm(2, -1, keepdim=True)
        normals = normals.reshape(-1, self.n_samples, 3)
        output['normal_map'] = torch.sum(weights.unsqueeze(-1) * normals, 1)
        return output

    def volume_rendering(self, z_vals, sdf):
        density = self.density(sdf).reshape(-1, z_vals.shape[1])
        dists = z_vals[:, 1:] - z_vals[:, :-1]
        dists = torch.cat([dists, torch.full((dists.shape[0], 1), 1e10)], -1)
        free_energy = dists * density
        shifted_free_energy = torch.cat([torch.zeros(dists.shape[0], 1), free_energy[:, :-1]], dim=-1)
        alpha = 1 - torch.exp(-free_energy)
        transmittance = torch.exp(-torch.cumsum(shifted_free_energy, dim=-1))
        return alpha * transmittance


class VolSDFLoss(nn.Module):
    def __init__(self, eikonal_weight=0.1):
        super().__init__()
        self.eikonal_weight = eikonal_weight
        self.rgb_loss = nn.L1Loss(reduction='mean')

    def forward(self, model_outputs, rgb_gt):
        rgb_loss = self.rgb_loss(model_outputs['rgb_values'], rgb_gt.reshape(-1, 3))
        grad_theta = model_outputs['grad_theta']
        eikonal_loss = ((grad_theta.norm(2, dim=1) - 1) ** 2).mean()
        loss = rgb_loss + self.eikonal_weight * eikonal_loss
        return {'loss': loss, 'rgb_loss': rgb_loss, 'eikonal_loss': eikonal_loss}


class RayDataset:
    """Pre-generated camera rays and pixel colours for one synthetic scene."""

    def __init__(self, num_rays=512):
        g = torch.Generator().manual_seed(11)
        self.cam_loc = torch.tensor([0.0, 0.0, -2.0]).expand(num_rays, 3).contiguous()
        d = torch.randn(num_rays, 3, generator=g) * 0.3 + torch.tensor([0.0, 0.0, 1.0])
        self.ray_dirs = F.normalize(d, dim=-1)
        self.rgb = torch.rand(num_rays, 3, generator=g)
        self.sampling_idx = torch.randperm(num_rays, generator=g)

    def ray_batch(self, start, num_rays=32):
        return self.sampling_idx[start:start + num_rays]


class VolSDFTrainRunner:
    def __init__(self):
        self.model = VolSDFNetwork()
        self.loss = VolSDFLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=5e-4)
        self.dataset = RayDataset()
        self.stats = defaultdict(list)

    def log_step(self, loss_output, model_outputs):
        self.stats['loss'].append(loss_output['loss'].item())
        self.stats['eikonal_loss'].append(loss_output['eikonal_loss'].item())
        normal_map = model_outputs['normal_map']
        self.stats['normal_len'].append(normal_map.norm(dim=-1).mean())  # TLK301

    def run(self, batches):
        self.model.train()
        for start in batches:
            ray_idx = self.dataset.ray_batch(start)
            model_outputs = self.model(self.dataset.cam_loc[ray_idx], self.dataset.ray_dirs[ray_idx])
            loss_output = self.loss(model_outputs, self.dataset.rgb[ray_idx])
            self.optimizer.zero_grad()
            loss_output['loss'].backward()
            self.optimizer.step()
            self.log_step(loss_output, model_outputs)
        return self.stats


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 512 - 32, (n,))]


def run(batches):
    torch.manual_seed(0)
    runner = VolSDFTrainRunner()
    return runner.run(batches)
