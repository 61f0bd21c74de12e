# Modelled on https://github.com/zhirongw/lemniscate.pytorch (see MEASURED.md): a blind test project, session 39.
"""Unsupervised feature learning via non-parametric instance discrimination (NPID),
after lemniscate.pytorch's cifar.py: ResNet18 embedding, NCEAverage memory, NCECriterion,
SGD with weight decay, nearest-neighbour evaluation against the memory bank.
main(steps) trains one epoch of `steps` iterations on tiny synthetic CIFAR-like data."""
import argparse

import torch
import torch.optim as optim

from lemniscate import models
from lemniscate.datasets import CIFAR10Instance
from lemniscate.datasets.cifar import RandomHorizontalFlip
from lemniscate.lib.NCEAverage import NCEAverage
from lemniscate.lib.NCECriterion import NCECriterion
from lemniscate.main import train
from lemniscate.test import NN


def get_parser():
    parser = argparse.ArgumentParser(description='PyTorch CIFAR10 Training')
    parser.add_argument('--lr', default=0.03, type=float, help='learning rate')
    parser.add_argument('--batch-size', default=8, type=int)
    parser.add_argument('--low-dim', default=32, type=int, metavar='D', help='feature dimension')
    parser.add_argument('--nce-k', default=16, type=int, metavar='K', help='number of negative samples for NCE')
    parser.add_argument('--nce-t', default=0.1, type=float, metavar='T', help='temperature parameter for softmax')
    parser.add_argument('--nce-m', default=0.5, type=float, help='momentum for non-parametric updates')
    parser.add_argument('--iter_size', default=2, type=int, help='caffe style iter size')
    parser.add_argument('--print-freq', default=10, type=int)
    parser.add_argument('--verbose', action='store_true')
    return parser


def main(steps):
    args = get_parser().parse_args([])
    torch.manual_seed(0)
    device = 'cpu'

    trainset = CIFAR10Instance(train=True, num_images=64, transform=RandomHorizontalFlip())
    sampler = torch.utils.data.RandomSampler(trainset, replacement=True,
                                             num_samples=steps * args.batch_size)
    trainloader = torch.utils.data.DataLoader(trainset, batch_size=args.batch_size,
                                              sampler=sampler, num_workers=0)
    testset = CIFAR10Instance(train=False, num_images=16)
    testloader = torch.utils.data.DataLoader(testset, batch_size=16, shuffle=False, num_workers=0)

    ndata = trainset.__len__()

    net = models.__dict__['ResNet18'](low_dim=args.low_dim)
    # define leminiscate
    lemniscate = NCEAverage(args.low_dim, ndata, args.nce_k, args.nce_t, args.nce_m)
    # define loss function
    criterion = NCECriterion(ndata)

    net.to(device)
    lemniscate.to(device)
    criterion.to(device)

    optimizer = optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)

    epoch = 0
    train_loss = train(epoch, net, lemniscate, criterion, optimizer, trainloader, args, device)
    acc = NN(epoch, net, lemniscate, trainloader, testloader)
    return {'train_loss': train_loss, 'nn_acc': acc}


if __name__ == '__main__':
    import time
    t = time.time()
    torch.set_num_threads(1)
    print(main(10), time.time() - t)
