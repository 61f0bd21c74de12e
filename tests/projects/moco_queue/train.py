# Modelled on facebookresearch/moco (main_moco.py, moco/builder.py, moco/loader.py) and the kNN
# monitor of its colab/moco_cifar10_demo.ipynb: a MoCo model with a momentum key encoder and a
# queue of negative keys, trained with the InfoNCE loss, meters and a progress line as in
# main_moco.py, and a kNN accuracy on a feature bank after each epoch. Written anew and much
# smaller; random 3x8x8 images stand in for ImageNet/CIFAR, a tiny MLP for the ResNet, and an
# end-to-end variant (keys with gradient, still queued) stands in for a research ablation.
import argparse

import torch
import torch.nn as nn

from knn import knn_monitor
from moco.builder import MoCo, MoCoEndToEnd
from moco.loader import make_loader
from utils import AverageMeter, ProgressMeter, accuracy


class TinyEncoder(nn.Module):
    def __init__(self, num_classes=16, in_dim=3 * 8 * 8, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Flatten(), nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))

    def forward(self, x):
        return self.net(x)


def train(train_loader, model, criterion, optimizer, epoch, args):
    losses = AverageMeter("Loss", ":.4e")
    top1 = AverageMeter("Acc@1", ":6.2f")
    pos_sim = AverageMeter("PosSim", ":.3f")
    progress = ProgressMeter(len(train_loader), [losses, top1, pos_sim], prefix="Epoch: [{}]".format(epoch))
    model.train()
    for i, (images, _) in enumerate(train_loader):
        output, target = model(im_q=images[0], im_k=images[1])
        loss = criterion(output, target)

        acc1, acc5 = accuracy(output, target, topk=(1, 5))
        losses.update(loss.item(), images[0].size(0))
        top1.update(acc1[0], images[0].size(0))
        pos_sim.update(output[:, 0].mean() * args.moco_t, images[0].size(0))  # expect: TLK101

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        if i % args.print_freq == 0:
            progress.display(i)
    return losses.avg


def main(argv=None):
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--lr", type=float, default=0.03)
    parser.add_argument("--moco-k", type=int, default=64)
    parser.add_argument("--moco-t", type=float, default=0.07)
    parser.add_argument("--end-to-end", action="store_true")
    parser.add_argument("--print-freq", type=int, default=4)
    args = parser.parse_args(argv)

    torch.manual_seed(0)
    images = torch.randn(128, 3, 8, 8)
    labels = torch.randint(0, 4, (128,))
    train_loader = make_loader(images, labels, args.batch_size)
    memory_loader = make_loader(images, labels, args.batch_size, two_crops=False)
    test_loader = make_loader(torch.randn(32, 3, 8, 8), torch.randint(0, 4, (32,)), args.batch_size, two_crops=False)

    arch = MoCoEndToEnd if args.end_to_end else MoCo
    model = arch(TinyEncoder, dim=16, K=args.moco_k, T=args.moco_t)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), args.lr, momentum=0.9, weight_decay=1e-4)

    for epoch in range(args.epochs):
        train(train_loader, model, criterion, optimizer, epoch, args)
        acc = knn_monitor(model.encoder_q, memory_loader, test_loader, classes=4)
        print("Epoch {}: kNN acc {:.2f}".format(epoch, acc))


if __name__ == "__main__":
    main()
