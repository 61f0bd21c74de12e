# Modelled on the layout of sthalles/SimCLR (run.py as train.py, simclr.py, models/, data_aug/, utils.py); code written anew.
import argparse
import logging

import torch

from data_aug import SyntheticImages
from models import ResNetSimCLR
from simclr import SimCLR

parser = argparse.ArgumentParser(description="PyTorch SimCLR (synthetic)")
parser.add_argument("--epochs", default=2, type=int)
parser.add_argument("--batches", default=5, type=int)
parser.add_argument("-b", "--batch-size", default=8, type=int)
parser.add_argument("--lr", default=3e-3, type=float)
parser.add_argument("--wd", default=1e-4, type=float)
parser.add_argument("--seed", default=0, type=int)
parser.add_argument("--out_dim", default=16, type=int)
parser.add_argument("--log-every-n-steps", default=1, type=int)
parser.add_argument("--temperature", default=0.07, type=float)
parser.add_argument("--n-views", default=2, type=int)
parser.add_argument("--bank_size", default=32, type=int)


def build_loader(args, n_batches, seed):
    return SyntheticImages(n_batches, args.batch_size, n_views=args.n_views, seed=seed)


def main(argv=None):
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    torch.manual_seed(args.seed)
    train_loader = build_loader(args, args.batches, args.seed)
    val_loader = build_loader(args, 2, args.seed + 1)
    model = ResNetSimCLR(base_model="resnet_tiny", out_dim=args.out_dim)
    optimizer = torch.optim.Adam(model.parameters(), args.lr, weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=max(args.epochs, 1), eta_min=0)
    simclr = SimCLR(model=model, optimizer=optimizer, scheduler=scheduler, args=args)
    pos = simclr.train(train_loader, val_loader)
    print("final positive-similarity EMA %.4f" % pos)


if __name__ == "__main__":
    main()
