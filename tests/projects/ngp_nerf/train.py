# Modelled on: https://github.com/ashawkey/torch-ngp
"""
Entry point (main_nerf.py style): trains a small NeRF on an analytic scene rendered from
4 cameras, with error-map ray sampling, a Ref-NeRF orientation loss and per-camera
position refinement. `main(steps)` runs `steps` training batches and returns the trainer.
"""
import argparse

import torch

from nerf.network import NeRFNetwork
from nerf.provider import NeRFDataset
from nerf.utils import PSNRMeter, Trainer, seed_everything


def make_opt(steps):
    return argparse.Namespace(
        workspace='workspace',
        seed=0,
        iters=steps,
        lr=1e-2,
        num_rays=128,
        num_steps=32,
        image_size=32,
        bound=1,
        min_near=0.2,
        error_map=True,
        lambda_orient=1e-3,
        pose_lr=1e-3,
        pose_warmup=1000,
        eval_interval=50,
        mute=True,
    )


def main(steps=30):
    opt = make_opt(steps)
    seed_everything(opt.seed)

    model = NeRFNetwork(encoding="frequency", bound=opt.bound, min_near=opt.min_near, num_cams=4)
    criterion = torch.nn.MSELoss(reduction='none')
    device = torch.device('cpu')

    optimizer = lambda model: torch.optim.Adam(model.get_params(opt.lr), betas=(0.9, 0.99), eps=1e-15)
    train_loader = NeRFDataset(opt, device=device, type='train').dataloader()
    # decay to 0.1 * init_lr at last iter step
    scheduler = lambda optimizer: torch.optim.lr_scheduler.LambdaLR(optimizer, lambda iter: 0.1 ** min(iter / max(opt.iters, 1), 1))

    trainer = Trainer('ngp', opt, model, device=device, optimizer=optimizer, criterion=criterion, ema_decay=0.95,
                      lr_scheduler=scheduler, metrics=[PSNRMeter()], eval_interval=opt.eval_interval)

    valid_loader = NeRFDataset(opt, device=device, type='val', n_cams=1).dataloader()
    trainer.train(train_loader, valid_loader, opt.iters)
    trainer.evaluate_one_epoch(valid_loader)
    return {'trainer': trainer, 'model': model, 'error_map': train_loader._data.error_map, 'stats': trainer.stats}


if __name__ == '__main__':
    out = main(30)
    print(out['stats'])
