import math

import numpy as np
import torch
from torch.utils.data import DataLoader

from .utils import get_rays


def look_at_pose(theta, phi, radius):
    """camera-to-world matrix of a camera on a sphere looking at the origin (OpenGL-ish convention)."""
    center = np.array([radius * math.sin(phi) * math.sin(theta),
                       radius * math.cos(phi),
                       radius * math.sin(phi) * math.cos(theta)], dtype=np.float32)
    forward = -center / np.linalg.norm(center)
    up = np.array([0, 1, 0], dtype=np.float32)
    right = np.cross(forward, up)
    right = right / np.linalg.norm(right)
    up = np.cross(right, forward)
    pose = np.eye(4, dtype=np.float32)
    pose[:3, 0] = right
    pose[:3, 1] = up
    pose[:3, 2] = forward
    pose[:3, 3] = center
    return pose


def render_sphere(rays_o, rays_d, radius=0.6):
    """analytic ground truth: a shaded sphere on a white background. rays: [N, 3]"""
    b = (rays_o * rays_d).sum(-1)
    c = (rays_o * rays_o).sum(-1) - radius ** 2
    disc = b * b - c
    hit = disc > 0
    t = -b - torch.sqrt(disc.clamp(min=0))
    pts = rays_o + t[:, None] * rays_d
    normal = pts / radius
    color = 0.5 + 0.5 * normal
    return torch.where(hit[:, None], color.clamp(0, 1), torch.ones_like(color))


class NeRFDataset:
    def __init__(self, opt, device, type='train', n_cams=4):
        super().__init__()
        self.opt = opt
        self.device = device
        self.type = type  # train, val, test
        self.training = self.type in ['train', 'all']
        self.num_rays = self.opt.num_rays if self.training else -1
        self.H = self.W = opt.image_size
        self.n_cams = n_cams

        offset = 0.0 if self.training else 0.5
        poses = [look_at_pose(2 * math.pi * (i + offset) / n_cams, math.pi / 3, 2.5) for i in range(n_cams)]
        self.poses = torch.from_numpy(np.stack(poses, axis=0))  # [N, 4, 4]
        fl = 0.5 * self.W / math.tan(0.5 * math.radians(45.0))
        self.intrinsics = np.array([fl, fl, self.W / 2, self.H / 2])

        # render the ground-truth images analytically
        images = []
        for i in range(n_cams):
            rays = get_rays(self.poses[i:i + 1], self.intrinsics, self.H, self.W, -1)
            images.append(render_sphere(rays['rays_o'][0], rays['rays_d'][0]).view(self.H, self.W, 3))
        self.images = torch.stack(images, dim=0)  # [N, H, W, 3]

        # [debug] uncomment to view examples of randomly generated poses.
        # visualize_poses(self.poses.numpy())

        # perspective projection matrix
        self.near = self.opt.min_near
        self.far = 1000  # infinite

        # error map for importance sampling of the rays (coarse 16x16 grid per image)
        if self.training and self.opt.error_map:
            self.error_map = torch.ones([self.images.shape[0], 16 * 16], dtype=torch.float)
        else:
            self.error_map = None

    def collate(self, index):
        B = len(index)  # a list of length 1
        poses = self.poses[index].to(self.device)  # [B, 4, 4]
        error_map = None if self.error_map is None else self.error_map[index]

        rays = get_rays(poses, self.intrinsics, self.H, self.W, self.num_rays, error_map)

        results = {
            'H': self.H,
            'W': self.W,
            'rays_o': rays['rays_o'],
            'rays_d': rays['rays_d'],
            'index': torch.tensor(index, dtype=torch.long),
        }

        images = self.images[index].to(self.device)  # [B, H, W, 3/4]
        if self.training:
            C = images.shape[-1]
            images = torch.gather(images.view(B, -1, C), 1, torch.stack(C * [rays['inds']], -1))  # [B, N, 3/4]
        results['images'] = images

        # need inds to update error_map
        if error_map is not None:
            results['inds_coarse'] = rays['inds_coarse']

        return results

    def dataloader(self):
        size = len(self.poses)
        loader = DataLoader(list(range(size)), batch_size=1, collate_fn=self.collate, shuffle=self.training,
                            num_workers=0, generator=torch.Generator().manual_seed(0))
        loader._data = self  # an ugly fix... we need to access error_map & poses in trainer.
        return loader
