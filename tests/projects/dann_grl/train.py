"""DANN training on synthetic shifted domains: python train.py

Modelled on thuml/Transfer-Learning-Library (examples/domain_adaptation/image_classification/dann.py, tllib/alignment/dann.py, tllib/utils/meter.py); leaks measured in MEASURED.md.
"""
import argparse
import time

import torch
import torch.nn.functional as F

from dalib import AverageMeter, DomainAdversarialLoss, DiscriminatorGradPenalty, accuracy
from dalib.data import make_domain_loader, make_val_loader
from dalib.meter import FeatureBank
from models import DomainDiscriminator, ImageClassifier


def train(loader, model, domain_adv, penalty, optimizer, epoch, args):
    losses = AverageMeter("Loss", ":6.3f")
    trans_losses = AverageMeter("Transfer", ":6.3f")
    cls_accs = AverageMeter("ClsAcc", ":5.1f")
    model.train()
    domain_adv.train()
    end = time.time()
    for i, (x_s, labels_s, x_t) in enumerate(loader):
        x = torch.cat((x_s, x_t), dim=0)
        y, f = model(x)
        y_s, _ = y.chunk(2, dim=0)
        f_s, f_t = f.chunk(2, dim=0)

        cls_loss = F.cross_entropy(y_s, labels_s)
        transfer_loss = domain_adv(f_s, f_t)
        gp = penalty(domain_adv, f_s, f_t)
        loss = cls_loss + args.trade_off * transfer_loss + args.gp_weight * gp

        losses.update(loss.item(), x_s.size(0))
        trans_losses.update(transfer_loss, x_s.size(0))  # expect: TLK101 (meter.py)
        cls_accs.update(accuracy(y_s, labels_s), x_s.size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if i % args.print_freq == 0:
            print(f"Epoch [{epoch}][{i}] {losses} {trans_losses} {cls_accs} "
                  f"conf {float(domain_adv.source_confidence):.3f} |grad| {penalty.last_norm():.3f} "
                  f"{time.time() - end:.2f}s")


def validate(loader, model, bank):
    model.eval()
    accs = AverageMeter("Acc", ":5.1f")
    with torch.no_grad():
        for x, y in loader:
            out, f = model(x)
            bank.add(f)
            accs.update(accuracy(out, y).item(), x.size(0))
    return accs.avg


def main(epochs=2, iters=6):
    parser = argparse.ArgumentParser()
    parser.add_argument("--trade-off", type=float, default=1.0)
    parser.add_argument("--gp-weight", type=float, default=0.1)
    parser.add_argument("--print-freq", type=int, default=3)
    args = parser.parse_args([])
    torch.manual_seed(0)
    model = ImageClassifier()
    domain_discri = DomainDiscriminator(model.features_dim)
    domain_adv = DomainAdversarialLoss(domain_discri)
    penalty = DiscriminatorGradPenalty()
    optimizer = torch.optim.SGD(list(model.parameters()) + list(domain_discri.parameters()),
                                lr=0.01, momentum=0.9, nesterov=True)
    bank = FeatureBank()
    best = 0.0
    for epoch in range(epochs):
        train(make_domain_loader(iters, seed=epoch), model, domain_adv, penalty, optimizer, epoch, args)
        acc = validate(make_val_loader(), model, bank)
        best = max(best, acc)
        print(f"epoch {epoch} target acc {acc:.1f} (best {best:.1f}), bank {tuple(bank.stacked().shape)}")
    return best


if __name__ == "__main__":
    main()
