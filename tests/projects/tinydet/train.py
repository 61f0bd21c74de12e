# Modelled on: https://github.com/pytorch/vision/tree/main/references/detection
r"""Tiny FCOS detection training, following the layout of the torchvision
detection references (train.py / engine.py / utils.py).

    python train.py --epochs 6 --hard-mining --model-ema
"""
import datetime
import math
import os
import random
import time

import torch
import torch.utils.data

import models
import utils
from data import HardExampleBatchSampler, SyntheticShapes, get_transform
from engine import evaluate, train_one_epoch


def get_dataset(image_set, transform, args):
    num_images = args.num_train_images if image_set == "train" else args.num_val_images
    seed = 0 if image_set == "train" else 1
    ds = SyntheticShapes(num_images=num_images, num_classes=args.num_classes, seed=seed, transforms=transform)
    return ds, args.num_classes


def get_args_parser(add_help=True):
    import argparse

    parser = argparse.ArgumentParser(description="Tiny detection training", add_help=add_help)
    parser.add_argument("--model", default="fcos_tiny", type=str, help="model name")
    parser.add_argument("--device", default="cpu", type=str, help="device (Use cuda or cpu Default: cpu)")
    parser.add_argument("--num-classes", default=4, type=int)
    parser.add_argument("--num-train-images", default=1024, type=int)
    parser.add_argument("--num-val-images", default=32, type=int)
    parser.add_argument("-b", "--batch-size", default=4, type=int, help="images per gpu")
    parser.add_argument("--iters-per-epoch", default=5, type=int)
    parser.add_argument("--epochs", default=6, type=int, metavar="N", help="number of total epochs to run")
    parser.add_argument("-j", "--workers", default=0, type=int, metavar="N")
    parser.add_argument("--lr", default=0.01, type=float, help="initial learning rate")
    parser.add_argument("--momentum", default=0.9, type=float, metavar="M", help="momentum")
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, metavar="W", dest="weight_decay")
    parser.add_argument("--lr-steps", default=[16, 22], nargs="+", type=int)
    parser.add_argument("--lr-gamma", default=0.1, type=float)
    parser.add_argument("--print-freq", default=5, type=int, help="print frequency")
    parser.add_argument("--output-dir", default="", type=str, help="path to save outputs")
    parser.add_argument("--resume", default="", type=str, help="path of checkpoint")
    parser.add_argument("--start_epoch", default=0, type=int, help="start epoch")
    parser.add_argument("--hard-mining", dest="hard_mining", action="store_true", default=True)
    parser.add_argument("--no-hard-mining", dest="hard_mining", action="store_false")
    parser.add_argument("--model-ema", action="store_true", default=True)
    parser.add_argument("--model-ema-decay", type=float, default=0.99)
    parser.add_argument("--amp", action="store_true", help="Use torch.cuda.amp for mixed precision training")
    parser.add_argument("--seed", default=42, type=int)
    return parser


def main(steps=None, args=None):
    if args is None:
        args = get_args_parser().parse_args([])
    if steps is not None:
        args.epochs = max(1, math.ceil(steps / args.iters_per_epoch))
    if args.output_dir:
        utils.mkdir(args.output_dir)
    print(args)

    torch.manual_seed(args.seed)
    random.seed(args.seed)
    device = torch.device(args.device)

    print("Loading data")
    dataset, num_classes = get_dataset("train", get_transform(True), args)
    dataset_test, _ = get_dataset("val", get_transform(False), args)

    print("Creating data loaders")
    if args.hard_mining:
        train_batch_sampler = HardExampleBatchSampler(len(dataset), args.batch_size, args.iters_per_epoch, seed=args.seed)
    else:
        train_sampler = torch.utils.data.RandomSampler(
            dataset, num_samples=args.iters_per_epoch * args.batch_size, replacement=True
        )
        train_batch_sampler = torch.utils.data.BatchSampler(train_sampler, args.batch_size, drop_last=True)

    data_loader = torch.utils.data.DataLoader(
        dataset, batch_sampler=train_batch_sampler, num_workers=args.workers, collate_fn=utils.collate_fn
    )
    data_loader_test = torch.utils.data.DataLoader(
        dataset_test, batch_size=8, sampler=torch.utils.data.SequentialSampler(dataset_test),
        num_workers=args.workers, collate_fn=utils.collate_fn,
    )

    print("Creating model")
    model = models.get_model(args.model, num_classes=num_classes)
    model.to(device)

    params = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.SGD(params, lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    scaler = torch.amp.GradScaler("cuda") if args.amp else None
    lr_scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, milestones=args.lr_steps, gamma=args.lr_gamma)

    ema, ema_model = None, None
    if args.model_ema:
        ema = utils.ModelEMA(model, decay=args.model_ema_decay)
        ema_model = utils.make_ema_model(model)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1

    print("Start training")
    start_time = time.time()
    history = []
    best_ap = 0.0
    for epoch in range(args.start_epoch, args.epochs):
        train_stats = train_one_epoch(
            model, optimizer, data_loader, device, epoch, args.print_freq, scaler,
            ema=ema, hard_miner=train_batch_sampler if args.hard_mining else None,
        )
        lr_scheduler.step()

        eval_model = model
        if ema is not None:
            ema.copy_to(ema_model)
            eval_model = ema_model
        evaluator = evaluate(eval_model, data_loader_test, device=device)
        best_ap = max(best_ap, evaluator.stats["AP50"])

        if args.output_dir:
            checkpoint = {
                "model": model.state_dict(),
                "optimizer": optimizer.state_dict(),
                "lr_scheduler": lr_scheduler.state_dict(),
                "args": args,
                "epoch": epoch,
            }
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, f"model_{epoch}.pth"))
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))

        log_stats = {
            **{f"train_{k}": v for k, v in train_stats.items()},
            **{f"test_{k}": v for k, v in evaluator.stats.items()},
            "epoch": epoch,
        }
        history.append(log_stats)

    total_time = time.time() - start_time
    total_time_str = str(datetime.timedelta(seconds=int(total_time)))
    print(f"Training time {total_time_str}  best AP50 {best_ap:.4f}")
    return {"model": model, "ema": ema, "history": history, "sampler": train_batch_sampler}


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args=args)
