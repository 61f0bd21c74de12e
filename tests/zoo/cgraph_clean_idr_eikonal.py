# Source: https://github.com/lioryariv/idr/blob/b33e09ca4ef5b16b7e5221ad80c0d6a1fc59bbe7/code/training/idr_train.py
# Shape: the eikonal term needs torch.autograd.grad(create_graph=True) and is backwarded in the same step; the runner logs losses with .item() and its periodic plot pass stores .detach()ed outputs, so no create_graph result survives the iteration.
# Verdict: clean
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class ImplicitNetwork(nn.Module):
    def __init__(self, feature_vector_size=16, d_in=3, dims=(32, 32, 32), radius_init=0.6):
        super().__init__()
        dims = [d_in] + list(dims) + [1 + feature_vector_size]
        self.num_layers = len(dims)
        for l in range(self.num_layers - 1):
            lin = nn.Linear(dims[l], dims[l + 1])
            if l == self.num_layers - 2:
                nn.init.normal_(lin.weight, mean=math.sqrt(math.pi) / math.sqrt(dims[l]), std=0.0001)
                nn.init.constant_(lin.bias, -radius_init)
            else:
                nn.init.constant_(lin.bias, 0.0)
                nn.init.normal_(lin.weight, 0.0, math.sqrt(2) / math.sqrt(dims[l + 1]))
            setattr(self, "lin" + str(l), lin)
        self.softplus = nn.Softplus(beta=100)

    def forward(self, x):
        for l in range(self.num_layers - 1):
            x = getattr(self, "lin" + str(l))(x)
            if l < self.num_layers - 2:
                x = self.softplus(x)
        return x

    def gradient(self, x):
        x.requires_grad_(True)
        y = self.forward(x)[:, :1]
        d_output = torch.ones_like(y, requires_grad=False)
        gradients = torch.autograd.grad(outputs=y, inputs=x, grad_outputs=d_output,
                                        create_graph=True, retain_graph=True, only_inputs=True)[0]
        return gradients.unsqueeze(1)


class IDRNetwork(nn.Module):
    def __init__(self, n_steps=16):
        super().__init__()
        self.n_steps = n_steps
        self.implicit_network = ImplicitNetwork()
        self.rendering_network = nn.Sequential(nn.Linear(9 + 16, 32), nn.ReLU(), nn.Linear(32, 3), nn.Tanh())

    def forward(self, cam_loc, ray_dirs):
        # crude sphere-tracing stand-in: march a fixed number of steps along the ray, no grad
        with torch.no_grad():
            t = torch.full((ray_dirs.shape[0], 1), 1.0)
            for _ in range(self.n_steps):
                sdf = self.implicit_network(cam_loc + t * ray_dirs)[:, :1]
                t = (t + sdf).clamp(0.5, 3.5)
        points = (cam_loc + t * ray_dirs).detach()
        output = self.implicit_network(points)
        sdf_output, feature_vectors = output[:, :1], output[:, 1:]
        normals = self.implicit_network.gradient(points).squeeze(1)
        rgb = self.rendering_network(torch.cat([points, ray_dirs, normals, feature_vectors], dim=-1))

        eikonal_points = torch.empty(ray_dirs.shape[0], 3).uniform_(-1.0, 1.0)
        grad_theta = self.implicit_network.gradient(eikonal_points)[:, 0, :]
        return {'points': points, 'rgb_values': rgb, 'sdf_output': sdf_output, 'grad_theta': grad_theta}


class IDRLoss(nn.Module):
    def __init__(self, eikonal_weight=0.1, mask_weight=100.0, alpha=50.0):
        super().__init__()
        self.eikonal_weight = eikonal_weight
        self.mask_weight = mask_weight
        self.alpha = alpha
        self.l1_loss = nn.L1Loss(reduction='mean')

    def forward(self, model_outputs, rgb_gt, object_mask):
        rgb_loss = self.l1_loss(model_outputs['rgb_values'], rgb_gt)
        sdf_pred = -self.alpha * model_outputs['sdf_output'].squeeze(-1)
        mask_loss = F.binary_cross_entropy_with_logits(sdf_pred, object_mask.float()) / self.alpha
        eikonal_loss = ((model_outputs['grad_theta'].norm(2, dim=1) - 1) ** 2).mean()
        loss = rgb_loss + self.eikonal_weight * eikonal_loss + self.mask_weight * mask_loss
        return {'loss': loss, 'rgb_loss': rgb_loss, 'eikonal_loss': eikonal_loss, 'mask_loss': mask_loss}


class SceneDataset:
    def __init__(self, total_pixels=512):
        g = torch.Generator().manual_seed(4)
        self.cam_loc = torch.tensor([0.0, 0.0, -2.5]).expand(total_pixels, 3).contiguous()
        self.ray_dirs = F.normalize(torch.randn(total_pixels, 3, generator=g) * 0.25 + torch.tensor([0., 0., 1.]), dim=-1)
        self.rgb = torch.rand(total_pixels, 3, generator=g) * 2 - 1
        self.object_mask = torch.rand(total_pixels, generator=g) < 0.5
        self.sampling_idx = torch.randperm(total_pixels, generator=g)

    def change_sampling_idx(self, start, num_pixels):
        return self.sampling_idx[start:start + num_pixels]


class IDRTrainRunner:
    def __init__(self, plot_freq=5, num_pixels=24):
        self.model = IDRNetwork()
        self.loss = IDRLoss()
        self.optimizer = torch.optim.Adam(self.model.parameters(), lr=1e-4)
        self.dataset = SceneDataset()
        self.plot_freq = plot_freq
        self.num_pixels = num_pixels
        self.last_plot = None

    def plot(self, idx):
        res = []
        for s in idx.split(8):
            out = self.model(self.dataset.cam_loc[s], self.dataset.ray_dirs[s])
            res.append({'points': out['points'].detach(), 'rgb_values': out['rgb_values'].detach()})
        self.last_plot = {k: torch.cat([r[k] for r in res]) for k in res[0]}

    def run(self, batches):
        for data_index, start in enumerate(batches):
            idx = self.dataset.change_sampling_idx(start, self.num_pixels)
            if data_index % self.plot_freq == 0:
                self.model.eval()
                self.plot(idx)
                self.model.train()
            model_outputs = self.model(self.dataset.cam_loc[idx], self.dataset.ray_dirs[idx])
            loss_output = self.loss(model_outputs, self.dataset.rgb[idx], self.dataset.object_mask[idx])
            loss = loss_output['loss']
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            if data_index % 10 == 0:
                print('[{0}]: loss = {1}, rgb_loss = {2}, eikonal_loss = {3}, mask_loss = {4}'.format(
                    data_index, loss.item(), loss_output['rgb_loss'].item(),
                    loss_output['eikonal_loss'].item(), loss_output['mask_loss'].item()))
        return self.last_plot


def make_batches(n):
    torch.manual_seed(0)
    return [int(s) for s in torch.randint(0, 512 - 24, (n,))]


def run(batches):
    torch.manual_seed(0)
    runner = IDRTrainRunner()
    return runner.run(batches)
