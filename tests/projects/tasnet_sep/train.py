"""Entry point: python train.py  (tiny synthetic run).

Modelled on kaituoxu/Conv-TasNet (src/solver.py, src/pit_criterion.py, src/conv_tasnet.py); leaks measured in MEASURED.md.
"""
import argparse

import torch

from conv_tasnet import ConvTasNet
from data import make_loaders
from solver import Solver


def main(epochs=2, steps=5):
    torch.manual_seed(0)
    tr_loader, cv_loader = make_loaders(steps)
    model = ConvTasNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    solver = Solver(tr_loader, cv_loader, model, optimizer, epochs=epochs)
    return solver.train()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--steps", type=int, default=5)
    a = p.parse_args()
    main(a.epochs, a.steps)
