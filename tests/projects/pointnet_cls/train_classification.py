# Modelled on train_classification.py of yanx27/Pointnet_Pointnet2_pytorch: parse_args, build the
# classifier and criterion from the models package, Adam with StepLR, train for args.epoch
# epochs and test after each. Written anew and small: random labelled point clouds (class =
# which axis is stretched) replace ModelNet40, and the epoch loop lives in engine.Trainer.
import argparse

import torch

from engine import Trainer
from models import get_loss, get_model
from utils.buffer import FeatureBank, HardExampleBuffer
from utils.meters import AverageMeter


def parse_args(argv=None):
    parser = argparse.ArgumentParser('training')
    parser.add_argument('--batch_size', type=int, default=8)
    parser.add_argument('--num_category', type=int, default=3)
    parser.add_argument('--epoch', type=int, default=3)
    parser.add_argument('--steps', type=int, default=6)
    parser.add_argument('--num_point', type=int, default=64)
    parser.add_argument('--learning_rate', type=float, default=0.001)
    parser.add_argument('--decay_rate', type=float, default=1e-4)
    parser.add_argument('--grad_penalty', type=float, default=0.01)
    return parser.parse_args(argv)


def make_data(n, num_point, num_class):
    target = torch.randint(0, num_class, (n,))
    points = torch.randn(n, num_point, 3) * 0.3
    points[torch.arange(n), :, target] *= 3.0
    return points, target


def batches(points, target, batch_size):
    return [(points[i:i + batch_size], target[i:i + batch_size]) for i in range(0, len(points), batch_size)]


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    train_pts, train_y = make_data(args.batch_size * args.steps, args.num_point, args.num_category)
    test_pts, test_y = make_data(args.batch_size * 2, args.num_point, args.num_category)
    classifier = get_model(args.num_category)
    criterion = get_loss()
    optimizer = torch.optim.Adam(classifier.parameters(), lr=args.learning_rate, betas=(0.9, 0.999), eps=1e-08, weight_decay=args.decay_rate)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=20, gamma=0.7)
    trainer = Trainer(classifier, criterion, optimizer, HardExampleBuffer(), FeatureBank(256, 64), AverageMeter('loss'), args)
    best_instance_acc = 0.0
    for epoch in range(args.epoch):
        train_loss, reg = trainer.train_epoch(batches(train_pts, train_y, args.batch_size))
        scheduler.step()
        instance_acc = trainer.evaluate(batches(test_pts, test_y, args.batch_size))
        best_instance_acc = max(best_instance_acc, instance_acc)
        print('Epoch %d: loss %.4f reg %.4f test acc %.3f (best %.3f)' % (epoch + 1, train_loss, reg, instance_acc, best_instance_acc))
    return trainer


if __name__ == '__main__':
    main()
