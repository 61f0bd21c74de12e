# Modelled on main_informer.py of zhouhaoyi/Informer2020: parse the arguments, build the
# experiment and call exp.train(setting) then exp.test(setting). Written anew and small: a
# synthetic multivariate sine series replaces the ETT csv files, and the model, criterion,
# EarlyStopping and LossRecorder are built here and handed to Exp_Informer.
import argparse

import torch

from exp.exp_informer import Exp_Informer
from models import Informer
from utils.criter import QuantileLoss
from utils.metrics import MetricTracker
from utils.tools import EarlyStopping, LossRecorder


def make_windows(n, seq_len, label_len, pred_len, dim, offset=0.0):
    t = torch.arange(n + seq_len + pred_len, dtype=torch.float32) * 0.1 + offset
    series = torch.stack([torch.sin(t * (k + 1)) for k in range(dim)], dim=-1)
    xs, ys = [], []
    for s in range(n):
        xs.append(series[s:s + seq_len])
        ys.append(series[s + seq_len - label_len:s + seq_len + pred_len])
    return torch.stack(xs), torch.stack(ys)


def loader(x, y, batch_size):
    return [(x[i:i + batch_size], y[i:i + batch_size]) for i in range(0, len(x) - batch_size + 1, batch_size)]


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description='[Informer] Long Sequences Forecasting')
    parser.add_argument('--seq_len', type=int, default=24)
    parser.add_argument('--label_len', type=int, default=12)
    parser.add_argument('--pred_len', type=int, default=12)
    parser.add_argument('--enc_in', type=int, default=4)
    parser.add_argument('--batch_size', type=int, default=8)
    parser.add_argument('--train_steps', type=int, default=10)
    parser.add_argument('--train_epochs', type=int, default=3)
    parser.add_argument('--patience', type=int, default=3)
    parser.add_argument('--learning_rate', type=float, default=1e-3)
    return parser.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    torch.manual_seed(0)
    train_x, train_y = make_windows(args.batch_size * args.train_steps, args.seq_len, args.label_len, args.pred_len, args.enc_in)
    vali_x, vali_y = make_windows(args.batch_size * 3, args.seq_len, args.label_len, args.pred_len, args.enc_in, offset=50.0)
    model = Informer(args.enc_in, args.enc_in, args.enc_in, args.seq_len, args.label_len, args.pred_len)
    criterion = QuantileLoss()
    early_stopping = EarlyStopping(patience=args.patience, verbose=True)
    recorder = LossRecorder()
    tracker = MetricTracker()
    exp = Exp_Informer(args, model, criterion, early_stopping, recorder, tracker)
    exp.train(loader(train_x, train_y, args.batch_size), loader(vali_x, vali_y, args.batch_size))
    with torch.no_grad():
        mae, mse = exp.test(loader(vali_x, vali_y, args.batch_size))
    print('mse:{}, mae:{}'.format(mse, mae))
    return exp


if __name__ == '__main__':
    main()
