# MAE pre-training on random images, modelled on facebookresearch/mae (main_pretrain.py)
import argparse

import torch

from mae_lite import models_mae
from mae_lite.engine_pretrain import train_one_epoch
from mae_lite.util import misc
from mae_lite.util.datasets import build_pretrain_dataset
from mae_lite.util.hooks import ActivationNormMonitor, ClsTokenRecorder
from mae_lite.util.log_writer import ScalarWriter
from mae_lite.util.optim_factory import add_weight_decay


def get_args(**overrides):
    args = argparse.Namespace(
        batch_size=8, accum_iter=2, model='mae_vit_tiny_patch8', input_size=32,
        mask_ratio=0.75, norm_pix_loss=True, weight_decay=0.05, lr=None, blr=1e-3,
        min_lr=0., warmup_epochs=0.2, epochs=1, start_epoch=0, seed=0, device='cpu')
    for k, v in overrides.items():
        setattr(args, k, v)
    return args


def main(steps: int) -> dict:
    args = get_args()
    device = torch.device(args.device)
    torch.manual_seed(args.seed + misc.get_rank())

    dataset_train = build_pretrain_dataset(args)
    sampler_train = torch.utils.data.RandomSampler(
        dataset_train, replacement=True, num_samples=steps * args.batch_size,
        generator=torch.Generator().manual_seed(args.seed))
    data_loader_train = torch.utils.data.DataLoader(
        dataset_train, sampler=sampler_train,
        batch_size=args.batch_size, num_workers=0, drop_last=True)

    model = models_mae.__dict__[args.model](norm_pix_loss=args.norm_pix_loss)
    model.to(device)
    model_without_ddp = model

    eff_batch_size = args.batch_size * args.accum_iter * misc.get_world_size()
    if args.lr is None:  # only base_lr is specified
        args.lr = args.blr * eff_batch_size / 256

    param_groups = add_weight_decay(model_without_ddp, args.weight_decay)
    optimizer = torch.optim.AdamW(param_groups, lr=args.lr, betas=(0.9, 0.95))
    loss_scaler = misc.NativeScalerWithGradNormCount()

    log_writer = ScalarWriter()
    norm_monitor = ActivationNormMonitor(model_without_ddp.blocks)
    cls_recorder = ClsTokenRecorder(model_without_ddp.blocks[-1])

    for epoch in range(args.start_epoch, args.epochs):
        train_stats = train_one_epoch(
            model, data_loader_train,
            optimizer, device, epoch, loss_scaler,
            log_writer=log_writer, monitors=(norm_monitor,),
            args=args
        )

    log_stats = {**{f'train_{k}': float(v) for k, v in train_stats.items()},
                 **cls_recorder.summary(), 'epoch': epoch}
    return log_stats


if __name__ == '__main__':
    print(main(5))
