# Modelled on https://github.com/facebookresearch/detr (see MEASURED.md): a blind test project, session 39.
"""Tiny CPU run of the DETR training engine (main.py of facebookresearch/detr, shrunk).

main(steps) builds model / criterion / postprocessors, the AdamW param groups with a
separate backbone lr, the StepLR schedule and the data loaders exactly as main.py does,
then trains one epoch of `steps` iterations and evaluates once.
"""
import argparse

import torch
from torch.utils.data import DataLoader

from detr.datasets import build_dataset
from detr.engine import evaluate, train_one_epoch
from detr.models import build_model
from detr.util import misc as utils
from detr.util.plot_utils import AttentionRecorder


def get_args_parser():
    parser = argparse.ArgumentParser('Set transformer detector', add_help=False)
    parser.add_argument('--lr', default=1e-4, type=float)
    parser.add_argument('--lr_backbone', default=1e-5, type=float)
    parser.add_argument('--batch_size', default=2, type=int)
    parser.add_argument('--weight_decay', default=1e-4, type=float)
    parser.add_argument('--epochs', default=1, type=int)
    parser.add_argument('--lr_drop', default=200, type=int)
    parser.add_argument('--clip_max_norm', default=0.1, type=float)
    # Model parameters
    parser.add_argument('--backbone', default='resnet50', type=str)
    parser.add_argument('--backbone_width', default=8, type=int)
    parser.add_argument('--enc_layers', default=1, type=int)
    parser.add_argument('--dec_layers', default=2, type=int)
    parser.add_argument('--dim_feedforward', default=64, type=int)
    parser.add_argument('--hidden_dim', default=32, type=int)
    parser.add_argument('--dropout', default=0.1, type=float)
    parser.add_argument('--nheads', default=4, type=int)
    parser.add_argument('--num_queries', default=6, type=int)
    parser.add_argument('--no_aux_loss', dest='aux_loss', action='store_false')
    # Matcher
    parser.add_argument('--set_cost_class', default=1, type=float)
    parser.add_argument('--set_cost_bbox', default=5, type=float)
    parser.add_argument('--set_cost_giou', default=2, type=float)
    # Loss coefficients
    parser.add_argument('--bbox_loss_coef', default=5, type=float)
    parser.add_argument('--giou_loss_coef', default=2, type=float)
    parser.add_argument('--eos_coef', default=0.1, type=float)
    # dataset parameters
    parser.add_argument('--dataset_file', default='synthetic_coco')
    parser.add_argument('--num_classes', default=5, type=int)
    parser.add_argument('--img_size', default=32, type=int)
    parser.add_argument('--num_train_images', default=20, type=int)
    parser.add_argument('--num_val_images', default=4, type=int)
    parser.add_argument('--vis_attn', default=True, type=bool)
    parser.add_argument('--device', default='cpu')
    parser.add_argument('--seed', default=42, type=int)
    return parser


def main(steps):
    args = get_args_parser().parse_args([])
    args.num_train_images = steps * args.batch_size
    device = torch.device(args.device)
    torch.manual_seed(args.seed + utils.get_rank())

    model, criterion, postprocessors = build_model(args)
    model.to(device)
    model_without_ddp = model
    n_parameters = sum(p.numel() for p in model.parameters() if p.requires_grad)

    attn_recorder = AttentionRecorder(model_without_ddp) if args.vis_attn else None

    param_dicts = [
        {"params": [p for n, p in model_without_ddp.named_parameters() if "backbone" not in n and p.requires_grad]},
        {
            "params": [p for n, p in model_without_ddp.named_parameters() if "backbone" in n and p.requires_grad],
            "lr": args.lr_backbone,
        },
    ]
    optimizer = torch.optim.AdamW(param_dicts, lr=args.lr,
                                  weight_decay=args.weight_decay)
    lr_scheduler = torch.optim.lr_scheduler.StepLR(optimizer, args.lr_drop)

    dataset_train = build_dataset(image_set='train', args=args)
    dataset_val = build_dataset(image_set='val', args=args)
    sampler_train = torch.utils.data.SequentialSampler(dataset_train)
    sampler_val = torch.utils.data.SequentialSampler(dataset_val)
    batch_sampler_train = torch.utils.data.BatchSampler(
        sampler_train, args.batch_size, drop_last=True)
    data_loader_train = DataLoader(dataset_train, batch_sampler=batch_sampler_train,
                                   collate_fn=utils.collate_fn, num_workers=0)
    data_loader_val = DataLoader(dataset_val, args.batch_size, sampler=sampler_val,
                                 drop_last=False, collate_fn=utils.collate_fn, num_workers=0)

    log_stats = {}
    for epoch in range(args.epochs):
        train_stats = train_one_epoch(
            model, criterion, data_loader_train, optimizer, device, epoch,
            args.clip_max_norm)
        lr_scheduler.step()
        test_stats, _ = evaluate(model, criterion, postprocessors, data_loader_val, device)
        log_stats = {**{f'train_{k}': v for k, v in train_stats.items()},
                     **{f'test_{k}': v for k, v in test_stats.items()},
                     'epoch': epoch,
                     'n_parameters': n_parameters}
    if attn_recorder is not None:
        log_stats.update(attn_recorder.summary())
    return log_stats


if __name__ == '__main__':
    import time
    t = time.time()
    out = main(10)
    print({k: out[k] for k in ('train_loss', 'test_loss', 'attn_maps')}, time.time() - t)
