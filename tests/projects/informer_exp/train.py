# Modelled on: https://github.com/zhouhaoyi/Informer2020 (main_informer.py -> exp/exp_informer.py Exp_Informer,
#   models/{model,embed,attn,encoder,decoder}.py, utils/{tools,metrics,criter}.py, data/data_loader.py)
import torch

from exp.exp_informer import Exp_Informer
from utils.tools import dotdict


def build_args(steps):
    args = dotdict()
    args.model = 'informer'
    args.data = 'ETTh1'
    args.root_path = './data/ETT/'
    args.data_path = 'ETTh1.csv'
    args.features = 'M'
    args.target = 'OT'
    args.freq = 'h'
    args.checkpoints = './checkpoints/'
    args.n_points = 640

    args.seq_len = 48
    args.label_len = 24
    args.pred_len = 24
    args.enc_in, args.dec_in, args.c_out = 7, 7, 7
    args.d_model = 32
    args.n_heads = 4
    args.e_layers = 2
    args.d_layers = 1
    args.d_ff = 64
    args.factor = 5
    args.padding = 0
    args.distil = True
    args.dropout = 0.05
    args.attn = 'full'
    args.embed = 'timeF'
    args.activation = 'gelu'
    args.output_attention = False
    args.mix = True
    args.cols = None
    args.num_workers = 0
    args.itr = 1
    args.train_epochs = 6
    args.max_iters = steps
    args.batch_size = 8
    args.patience = 3
    args.learning_rate = 0.0001
    args.des = 'test'
    args.criter = 'mse'
    args.lradj = 'type1'
    args.inverse = False
    args.seed = 2021

    args.use_gpu = False
    args.gpu = 0
    args.use_multi_gpu = False
    args.devices = '0'
    args.detail_freq = args.freq
    return args


def main(steps):
    torch.manual_seed(2021)
    args = build_args(steps)
    setting = '{}_{}_ft{}_sl{}_ll{}_pl{}_dm{}_nh{}_el{}_dl{}_df{}_at{}_fc{}_eb{}_dt{}_mx{}_{}_{}'.format(
        args.model, args.data, args.features, args.seq_len, args.label_len, args.pred_len,
        args.d_model, args.n_heads, args.e_layers, args.d_layers, args.d_ff, args.attn,
        args.factor, args.embed, args.distil, args.mix, args.des, 0)

    exp = Exp_Informer(args)  # set experiments
    print('>>>>>>>start training : {}>>>>>>>>>>>>>>>>>>>>>>>>>>'.format(setting))
    exp.train(setting)
    return exp


if __name__ == '__main__':
    main(10)
