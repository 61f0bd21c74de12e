"""Entry point modelled on TorchSSL freematch.py (main_worker): build the
backbone, FreeMatch algorithm, optimizer/scheduler, loaders, then train."""
import argparse
import logging

import torch

from torchssl.datasets.ssl_dataset import SSL_Dataset, get_data_loader
from torchssl.models.freematch.freematch import FreeMatch
from torchssl.train_utils import TBLog, get_cosine_schedule_with_warmup, get_optimizer
from torchssl.utils import count_parameters, get_logger, net_builder


def get_args(steps):
    return argparse.Namespace(
        save_name='freematch_cifar100_400_0', save_dir=None, resume=False,
        dataset='cifar100', num_classes=100, num_labels=400,
        num_train_iter=steps - 1, num_eval_iter=1000,
        batch_size=8, uratio=7, eval_batch_size=64,
        ema_m=0.999, hard_label=True, T=0.5, ulb_loss_ratio=1.0, ent_loss_ratio=0.0,
        optim='SGD', lr=0.03, momentum=0.9, weight_decay=5e-4, amp=False, clip=0,
        net='WideResNet', net_from_name=False, depth=10, widen_factor=1, leaky_slope=0.1,
        dropout=0.0, base_width=8, seed=0, gpu=None,
    )


def main(steps):
    torch.set_num_threads(1)  # tiny CPU run; avoid thread oversubscription
    args = get_args(steps)
    torch.manual_seed(args.seed)
    device = torch.device('cpu')
    logger = get_logger(args.save_name, None, 'WARNING')
    tb_log = TBLog(args.save_dir, args.save_name, use_tensorboard=False)

    _net_builder = net_builder(args.net,
                               args.net_from_name,
                               {'first_stride': 1,
                                'depth': args.depth,
                                'widen_factor': args.widen_factor,
                                'leaky_slope': args.leaky_slope,
                                'dropRate': args.dropout,
                                'base_width': args.base_width})

    model = FreeMatch(_net_builder,
                      args.num_classes,
                      args.ema_m,
                      args.ulb_loss_ratio,
                      args.ent_loss_ratio,
                      args.hard_label,
                      num_eval_iter=args.num_eval_iter,
                      tb_log=tb_log,
                      logger=logger,
                      device=device)
    logger.info(f'Number of Trainable Params: {count_parameters(model.model)}')

    # construct SGD and cosine lr scheduler
    optimizer = get_optimizer(model.model, args.optim, args.lr, args.momentum, args.weight_decay)
    scheduler = get_cosine_schedule_with_warmup(optimizer,
                                                args.num_train_iter,
                                                num_warmup_steps=args.num_train_iter * 0)
    model.set_optimizer(optimizer, scheduler)

    train_dset = SSL_Dataset(args.dataset, num_classes=args.num_classes)
    lb_dset, ulb_dset = train_dset.get_ssl_dset(args.num_labels, num_ulb=2000)
    eval_dset = train_dset.get_dset(num_eval=128)

    loader_dict = {
        'train_lb': get_data_loader(lb_dset, args.batch_size, steps, seed=1),
        'train_ulb': get_data_loader(ulb_dset, args.batch_size * args.uratio, steps, seed=2),
        'eval': torch.utils.data.DataLoader(eval_dset, batch_size=args.eval_batch_size,
                                            shuffle=False, num_workers=0),
    }
    model.set_data_loader(loader_dict)

    eval_dict = model.train(args, logger=logger)
    eval_dict['it'] = model.it
    eval_dict['time_p'] = float(model.time_p)
    eval_dict['algorithm'] = model
    return eval_dict


if __name__ == '__main__':
    logging.basicConfig(level=logging.INFO)
    out = main(20)
    print({k: v for k, v in out.items() if k != 'algorithm'})
