"""SubjectLoader in the shape of nerfacc's examples/datasets/nerf_synthetic.py, but the "scene" is procedural
(a shaded sphere rendered analytically from cameras on a ring), so no image files are needed."""
import math

import torch
import torch.nn.functional as F

from .utils import Rays


def _look_at(cam_pos: torch.Tensor) -> torch.Tensor:
    forward = F.normalize(-cam_pos, dim=-1)
    up = torch.tensor([0.0, 0.0, 1.0])
    right = F.normalize(torch.linalg.cross(forward, up), dim=-1)
    true_up = torch.linalg.cross(right, forward)
    c2w = torch.eye(4)
    c2w[:3, 0], c2w[:3, 1], c2w[:3, 2], c2w[:3, 3] = right, true_up, -forward, cam_pos
    return c2w


class SubjectLoader(torch.utils.data.Dataset):
    """Single subject data loader for training and evaluation."""

    SPLITS = ["train", "val", "trainval", "test"]
    WIDTH, HEIGHT = 16, 16
    NEAR, FAR = 2.0, 6.0
    OPENGL_CAMERA = True

    def __init__(self, subject_id: str, root_fp: str, split: str, color_bkgd_aug: str = "white",
                 num_rays: int = None, near: float = None, far: float = None, batch_over_images: bool = True,
                 device: torch.device = torch.device("cpu"), n_views: int = 12, sphere_radius: float = 0.6):
        super().__init__()
        assert split in self.SPLITS, "%s" % split
        self.split = split
        self.num_rays = num_rays
        self.near = self.NEAR if near is None else near
        self.far = self.FAR if far is None else far
        self.training = (num_rays is not None) and (split in ["train", "trainval"])
        self.color_bkgd_aug = color_bkgd_aug
        self.batch_over_images = batch_over_images
        self.sphere_radius = sphere_radius

        offset = 0.0 if split in ["train", "trainval"] else math.pi / n_views
        angles = torch.arange(n_views) * 2 * math.pi / n_views + offset
        cams = torch.stack([4.0 * torch.cos(angles), 4.0 * torch.sin(angles), 1.0 + 0.2 * torch.sin(3 * angles)], -1)
        self.camtoworlds = torch.stack([_look_at(c) for c in cams]).to(device)
        focal = 0.5 * self.WIDTH / math.tan(0.5 * 0.69)
        self.K = torch.tensor([[focal, 0, self.WIDTH / 2.0], [0, focal, self.HEIGHT / 2.0], [0, 0, 1]],
                              dtype=torch.float32, device=device)
        self.images = torch.stack([self._render_gt(i) for i in range(n_views)])  # [n, H, W, 3]

    def __len__(self):
        return len(self.camtoworlds)

    def update_num_rays(self, num_rays):
        self.num_rays = num_rays

    def _rays(self, image_id, x, y):
        c2w = self.camtoworlds[image_id]  # (..., 4, 4)
        camera_dirs = F.pad(
            torch.stack([(x - self.K[0, 2] + 0.5) / self.K[0, 0],
                         (y - self.K[1, 2] + 0.5) / self.K[1, 1] * (-1.0 if self.OPENGL_CAMERA else 1.0)], dim=-1),
            (0, 1), value=(-1.0 if self.OPENGL_CAMERA else 1.0),
        )  # [num_rays, 3]
        directions = (camera_dirs[:, None, :] * c2w[..., :3, :3]).sum(dim=-1)
        origins = torch.broadcast_to(c2w[..., :3, -1], directions.shape)
        viewdirs = directions / torch.linalg.norm(directions, dim=-1, keepdims=True)
        return origins, viewdirs

    def _shade(self, origins, viewdirs):
        # analytic ray-sphere hit -> normal-shaded colour, white background
        b = (origins * viewdirs).sum(-1)
        c = (origins * origins).sum(-1) - self.sphere_radius**2
        disc = b * b - c
        hit = disc > 0
        t = -b - torch.sqrt(disc.clamp(min=0))
        normal = F.normalize(origins + t[:, None] * viewdirs, dim=-1)
        color = 0.5 + 0.5 * normal
        return torch.where(hit[:, None], color, torch.ones_like(color))

    def _render_gt(self, image_id):
        y, x = torch.meshgrid(torch.arange(self.HEIGHT), torch.arange(self.WIDTH), indexing="ij")
        x, y = x.flatten().float(), y.flatten().float()
        idx = torch.full_like(x, image_id, dtype=torch.long)
        origins, viewdirs = self._rays(idx, x, y)
        return self._shade(origins, viewdirs).reshape(self.HEIGHT, self.WIDTH, 3)

    def __getitem__(self, index):
        data = self.fetch_data(index)
        data = self.preprocess(data)
        return data

    def preprocess(self, data):
        """Process the fetched / cached data with randomness."""
        pixels, rays = data["rgb"], data["rays"]
        color_bkgd = torch.ones(3, device=self.images.device)
        return {"pixels": pixels, "rays": rays, "color_bkgd": color_bkgd,
                **{k: v for k, v in data.items() if k not in ["rgb", "rays"]}}

    def fetch_data(self, index):
        """Fetch the data (it maybe cached for multiple batches)."""
        num_rays = self.num_rays
        if self.training:
            if self.batch_over_images:
                image_id = torch.randint(0, len(self.images), size=(num_rays,), device=self.images.device)
            else:
                image_id = torch.full((num_rays,), index, device=self.images.device)
            x = torch.randint(0, self.WIDTH, size=(num_rays,), device=self.images.device)
            y = torch.randint(0, self.HEIGHT, size=(num_rays,), device=self.images.device)
        else:
            image_id = torch.full((self.HEIGHT * self.WIDTH,), index, device=self.images.device)
            y, x = torch.meshgrid(torch.arange(self.HEIGHT), torch.arange(self.WIDTH), indexing="ij")
            x, y = x.flatten(), y.flatten()
        rgb = self.images[image_id, y, x]
        origins, viewdirs = self._rays(image_id, x.float(), y.float())
        if self.training:
            rays = Rays(origins=origins, viewdirs=viewdirs)
        else:
            rays = Rays(origins=origins.reshape(self.HEIGHT, self.WIDTH, 3),
                        viewdirs=viewdirs.reshape(self.HEIGHT, self.WIDTH, 3))
            rgb = rgb.reshape(self.HEIGHT, self.WIDTH, 3)
        return {"rgb": rgb, "rays": rays}
