# Modelled on the layout of VainF/DeepLabV3Plus-Pytorch (main.py split into train.py and engine.py, network/, metrics/, utils/); code written anew.
import argparse

import torch

import network
from engine import train_one_epoch, validate
from metrics import AverageMeter, StreamSegMetrics
from utils.loss import PolyLR, SegCriterion
from utils.visualizer import Visualizer


def get_argparser():
    parser = argparse.ArgumentParser()
    parser.add_argument("--num_classes", type=int, default=4)
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--iters_per_epoch", type=int, default=6)
    parser.add_argument("--batch_size", type=int, default=2)
    parser.add_argument("--crop_size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.01)
    parser.add_argument("--aux_weight", type=float, default=0.4)
    parser.add_argument("--sample_interval", type=int, default=1)
    parser.add_argument("--print_interval", type=int, default=3)
    parser.add_argument("--random_seed", type=int, default=1)
    return parser


def build_loader(opts, n_batches, seed):
    """Synthetic scenes: class = quadrant of a bright blob, 255 on a thin ignore border."""
    g = torch.Generator().manual_seed(seed)
    batches = []
    s = opts.crop_size
    for _ in range(n_batches):
        images = torch.rand(opts.batch_size, 3, s, s, generator=g)
        labels = (images[:, 0] * opts.num_classes).long().clamp(max=opts.num_classes - 1)
        labels[:, 0, :] = 255
        batches.append((images, labels))
    return batches


def main(argv=None):
    opts = get_argparser().parse_args(argv)
    torch.manual_seed(opts.random_seed)
    train_loader = build_loader(opts, opts.iters_per_epoch, opts.random_seed)
    val_loader = build_loader(opts, 2, opts.random_seed + 1)

    model = network.deeplabv3plus_tiny(opts.num_classes, aux_loss=opts.aux_weight > 0)
    optimizer = torch.optim.SGD(model.parameters(), lr=opts.lr, momentum=0.9, weight_decay=1e-4)
    scheduler = PolyLR(optimizer, opts.epochs * opts.iters_per_epoch)
    criterion = SegCriterion(opts.num_classes)
    metrics = StreamSegMetrics(opts.num_classes)
    vis = Visualizer(env="deeplab")
    loss_meter = AverageMeter()

    cur_itrs = 0
    best_score = 0.0
    for epoch in range(opts.epochs):
        cur_itrs = train_one_epoch(model, criterion, optimizer, scheduler, train_loader, vis, loss_meter, cur_itrs, opts)
        score = validate(model, criterion, val_loader, metrics)
        vis.vis_scalar("[Val] Mean IoU", cur_itrs, score["Mean IoU"])
        vis.vis_scalar("[Val] Loss", cur_itrs, score["Val Loss"])
        best_score = max(best_score, score["Mean IoU"])
        print("epoch %d mIoU %.3f train loss %.4f" % (epoch, score["Mean IoU"], float(loss_meter.avg)))
    rendered = vis.close()
    print("best mIoU %.3f, %d samples rendered" % (best_score, len(rendered)))
    return best_score


if __name__ == "__main__":
    main()
