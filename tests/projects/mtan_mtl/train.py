"""python train.py [--weight uncert|dwa]

Modelled on lorenmt/mtan (im2im_pred/utils.py multi_task_trainer, im2im_pred/model_segnet_mtan.py); leaks measured in MEASURED.md.
"""
import argparse

import torch

from data import make_loaders
from engine import multi_task_trainer
from models import MTANet


def main(epochs=2, steps=5, argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--weight", default="uncert", choices=["uncert", "dwa"])
    p.add_argument("--max-norm", type=float, default=5.0)
    p.add_argument("--diag-every", type=int, default=2)
    opt = p.parse_args(argv)
    torch.manual_seed(0)
    train_loader, test_loader = make_loaders(steps)
    model = MTANet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=100, gamma=0.5)
    return multi_task_trainer(train_loader, test_loader, model, optimizer, scheduler, opt, total_epoch=epochs)


if __name__ == "__main__":
    main()
