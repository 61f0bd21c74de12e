import math
import os
import random

import numpy as np
import torch
import torch.nn as nn


def custom_meshgrid(*args):
    return torch.meshgrid(*args, indexing='ij')


def seed_everything(seed):
    random.seed(seed)
    os.environ['PYTHONHASHSEED'] = str(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


@torch.no_grad()
def _coarse_to_fine(inds_coarse, H, W, B, N, device):
    inds_x, inds_y = inds_coarse // 16, inds_coarse % 16
    sx, sy = H / 16, W / 16
    inds_x = (inds_x * sx + torch.rand(B, N, device=device) * sx).long().clamp(max=H - 1)
    inds_y = (inds_y * sy + torch.rand(B, N, device=device) * sy).long().clamp(max=W - 1)
    return inds_x * W + inds_y


def get_rays(poses, intrinsics, H, W, N=-1, error_map=None):
    ''' get rays
    Args:
        poses: [B, 4, 4], cam2world
        intrinsics: [4]
        H, W, N: int
        error_map: [B, 16 * 16], sample probability based on training error
    Returns:
        rays_o, rays_d: [B, N, 3]
        inds: [B, N]
    '''
    device = poses.device
    B = poses.shape[0]
    fx, fy, cx, cy = intrinsics

    i, j = custom_meshgrid(torch.linspace(0, W - 1, W, device=device), torch.linspace(0, H - 1, H, device=device))
    i = i.t().reshape([1, H * W]).expand([B, H * W]) + 0.5
    j = j.t().reshape([1, H * W]).expand([B, H * W]) + 0.5

    results = {}

    if N > 0:
        N = min(N, H * W)
        if error_map is None:
            inds = torch.randint(0, H * W, size=[N], device=device)  # may duplicate
            inds = inds.expand([B, N])
        else:
            # weighted sample on a low-reso grid
            inds_coarse = torch.multinomial(error_map.to(device), N, replacement=False)  # [B, N], but in [0, 16*16)
            # map to the original resolution with random perturb.
            inds = _coarse_to_fine(inds_coarse, H, W, B, N, device)
            results['inds_coarse'] = inds_coarse  # need this when updating error_map

        i = torch.gather(i, -1, inds)
        j = torch.gather(j, -1, inds)
        results['inds'] = inds
    else:
        inds = torch.arange(H * W, device=device).expand([B, H * W])

    zs = torch.ones_like(i)
    xs = (i - cx) / fx * zs
    ys = -(j - cy) / fy * zs
    directions = torch.stack((xs, ys, zs), dim=-1)
    directions = directions / torch.norm(directions, dim=-1, keepdim=True)
    rays_d = directions @ poses[:, :3, :3].transpose(-1, -2)  # (B, N, 3)

    rays_o = poses[..., :3, 3]  # [B, 3]
    rays_o = rays_o[..., None, :].expand_as(rays_d)  # [B, N, 3]

    results['rays_o'] = rays_o
    results['rays_d'] = rays_d
    return results


class PSNRMeter:
    def __init__(self):
        self.V = 0
        self.N = 0

    def clear(self):
        self.V = 0
        self.N = 0

    def prepare_inputs(self, *inputs):
        outputs = []
        for i, inp in enumerate(inputs):
            if torch.is_tensor(inp):
                inp = inp.detach().cpu().numpy()
            outputs.append(inp)
        return outputs

    def update(self, preds, truths):
        preds, truths = self.prepare_inputs(preds, truths)  # [B, N, 3] or [B, H, W, 3], range[0, 1]
        # simplified since max_pixel_value is 1 here.
        psnr = -10 * np.log10(np.mean((preds - truths) ** 2))
        self.V += psnr
        self.N += 1

    def measure(self):
        return self.V / max(self.N, 1)

    def report(self):
        return f'PSNR = {self.measure():.6f}'


class ExponentialMovingAverage:
    """Maintains (exponential) moving average of a set of parameters (torch_ema style)."""

    def __init__(self, parameters, decay):
        self.decay = decay
        self.parameters = [p for p in parameters if p.requires_grad]
        self.shadow_params = [p.clone().detach() for p in self.parameters]
        self.collected_params = None

    @torch.no_grad()
    def update(self):
        one_minus_decay = 1.0 - self.decay
        for s_param, param in zip(self.shadow_params, self.parameters):
            s_param.sub_(one_minus_decay * (s_param - param))

    @torch.no_grad()
    def copy_to(self):
        for s_param, param in zip(self.shadow_params, self.parameters):
            param.data.copy_(s_param.data)

    def store(self):
        self.collected_params = [param.clone().detach() for param in self.parameters]

    @torch.no_grad()
    def restore(self):
        for c_param, param in zip(self.collected_params, self.parameters):
            param.data.copy_(c_param.data)


class Trainer(object):
    def __init__(self,
                 name,  # name of this experiment
                 opt,  # extra conf
                 model,  # network
                 criterion=None,  # loss function, if None, assume inline implementation in train_step
                 optimizer=None,  # optimizer
                 ema_decay=None,  # if use EMA, set the decay
                 lr_scheduler=None,  # scheduler
                 metrics=[],  # metrics for evaluation, if None, use val_loss to measure performance
                 device=None,  # device to use, usually setting to None is OK. (auto choose device)
                 eval_interval=1,  # eval once every $ epoch
                 report_metric_at_train=False,  # also report metrics at training
                 ):
        self.name = name
        self.opt = opt
        self.metrics = metrics
        self.eval_interval = eval_interval
        self.report_metric_at_train = report_metric_at_train
        self.device = device if device is not None else torch.device('cpu')

        model.to(self.device)
        self.model = model
        self.criterion = criterion if criterion is not None else nn.MSELoss(reduction='none')

        if optimizer is None:
            self.optimizer = torch.optim.Adam(self.model.parameters(), lr=0.001, weight_decay=5e-4)
        else:
            self.optimizer = optimizer(self.model)

        if lr_scheduler is None:
            self.lr_scheduler = torch.optim.lr_scheduler.LambdaLR(self.optimizer, lr_lambda=lambda epoch: 1)
        else:
            self.lr_scheduler = lr_scheduler(self.optimizer)

        if ema_decay is not None:
            self.ema = ExponentialMovingAverage(self.model.get_params_flat(), decay=ema_decay) \
                if hasattr(self.model, 'get_params_flat') else \
                ExponentialMovingAverage([p for g in self.model.get_params(0) for p in g['params']], decay=ema_decay)
        else:
            self.ema = None

        # per-camera refinement: optimised only after the warm-up
        self.pose_optimizer = None
        if self.model.cam_offsets is not None:
            self.pose_optimizer = torch.optim.Adam([self.model.cam_offsets], lr=self.opt.pose_lr)

        # variable init
        self.epoch = 0
        self.global_step = 0
        self.local_step = 0
        self.stats = {
            "loss": [],
            "valid_loss": [],
            "results": [],  # metrics[0], or valid_loss
        }
        self.error_map = None

    def log(self, *args, **kwargs):
        if not self.opt.mute:
            print(*args, **kwargs)

    # ------------------------------

    def train_step(self, data):
        rays_o = data['rays_o']  # [B, N, 3]
        rays_d = data['rays_d']  # [B, N, 3]
        images = data['images']  # [B, N, 3]
        gt_rgb = images

        outputs = self.model.render(rays_o, rays_d, index=data['index'], staged=False, bg_color=1, perturb=True,
                                    compute_normals=self.opt.lambda_orient > 0, num_steps=self.opt.num_steps)
        pred_rgb = outputs['image']

        # MSE loss
        loss = self.criterion(pred_rgb, gt_rgb).mean(-1)  # [B, N, 3] --> [B, N]

        # update error_map
        if self.error_map is not None:
            index = data['index']  # [B]
            inds = data['inds_coarse']  # [B, N]

            # take out, this is an advanced indexing and the copy is unavoidable.
            error_map = self.error_map[index]  # [B, 16 * 16]

            error = loss.to(error_map.device)  # known-miss: TLK103

            # ema update
            ema_error = 0.1 * error_map.gather(1, inds) + 0.9 * error
            error_map.scatter_(1, inds, ema_error)

            # put back
            self.error_map[index] = error_map

        loss = loss.mean()

        if self.opt.lambda_orient > 0:
            loss = loss + self.opt.lambda_orient * self._orientation_loss(outputs)

        return pred_rgb, gt_rgb, loss

    def _orientation_loss(self, outputs):
        from loss import orientation_loss
        return orientation_loss(outputs['weights'], outputs['normals'], outputs['dirs'])

    def eval_step(self, data):
        rays_o = data['rays_o']  # [B, N, 3]
        rays_d = data['rays_d']  # [B, N, 3]
        images = data['images']  # [B, H, W, 3]
        B, H, W, C = images.shape
        gt_rgb = images

        outputs = self.model.render(rays_o, rays_d, staged=True, bg_color=1, perturb=False,
                                    num_steps=self.opt.num_steps)
        pred_rgb = outputs['image'].reshape(B, H, W, 3)
        pred_depth = outputs['depth'].reshape(B, H, W)
        loss = self.criterion(pred_rgb, gt_rgb).mean()
        return pred_rgb, pred_depth, gt_rgb, loss

    # ------------------------------

    def train(self, train_loader, valid_loader, max_steps):
        # get a ref to error_map
        self.error_map = train_loader._data.error_map

        max_epochs = int(np.ceil(max_steps / len(train_loader)))
        for epoch in range(self.epoch + 1, max_epochs + 1):
            self.epoch = epoch
            self.train_one_epoch(train_loader, max_steps)
            if self.epoch % self.eval_interval == 0:
                self.evaluate_one_epoch(valid_loader)

    def train_one_epoch(self, loader, max_steps):
        self.log(f"==> Start Training Epoch {self.epoch}, lr={self.optimizer.param_groups[0]['lr']:.6f} ...")

        total_loss = 0
        if self.report_metric_at_train:
            for metric in self.metrics:
                metric.clear()

        self.model.train()
        self.local_step = 0

        for data in loader:
            if self.global_step >= max_steps:
                break
            self.local_step += 1
            self.global_step += 1

            self.optimizer.zero_grad()

            preds, truths, loss = self.train_step(data)

            # the orientation term differentiates through autograd.grad normals
            loss.backward(create_graph=True)  # known-miss: TLK302
            self.optimizer.step()
            if self.pose_optimizer is not None and self.global_step > self.opt.pose_warmup:
                self.pose_optimizer.step()
                self.pose_optimizer.zero_grad()

            self.lr_scheduler.step()

            loss_val = loss.item()
            total_loss += loss_val

            if self.report_metric_at_train:
                for metric in self.metrics:
                    metric.update(preds, truths)

        if self.ema is not None:
            self.ema.update()

        average_loss = total_loss / max(self.local_step, 1)
        self.stats["loss"].append(average_loss)

        if self.report_metric_at_train:
            for metric in self.metrics:
                self.log(metric.report())
                metric.clear()

        self.log(f"==> Finished Epoch {self.epoch}.")

    def evaluate_one_epoch(self, loader):
        self.log(f"++> Evaluate at epoch {self.epoch} ...")
        total_loss = 0
        for metric in self.metrics:
            metric.clear()

        self.model.eval()

        if self.ema is not None:
            self.ema.store()
            self.ema.copy_to()

        with torch.no_grad():
            self.local_step = 0
            for data in loader:
                self.local_step += 1
                preds, preds_depth, truths, loss = self.eval_step(data)
                loss_val = loss.item()
                total_loss += loss_val
                for metric in self.metrics:
                    metric.update(preds, truths)

        average_loss = total_loss / max(self.local_step, 1)
        self.stats["valid_loss"].append(average_loss)
        if len(self.metrics) > 0:
            result = self.metrics[0].measure()
            self.stats["results"].append(-result)  # max mode: use -result
        else:
            self.stats["results"].append(average_loss)

        for metric in self.metrics:
            self.log(metric.report())
            metric.clear()

        if self.ema is not None:
            self.ema.restore()

        self.log(f"++> Evaluate epoch {self.epoch} Finished.")
