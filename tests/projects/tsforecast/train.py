# Modelled on: https://github.com/thuml/Time-Series-Library
import math
import random
import tempfile

import torch

from exp import Exp_Long_Term_Forecast
from tools import dotdict, print_args

DEFAULTS = dict(
    # basic config
    task_name="long_term_forecast", is_training=1, model_id="synth_48_24", model="DLinear",
    # data loader
    data="synthetic", root_path="./data/", data_path="synthetic.csv", features="M", target="OT",
    freq="h", checkpoints=None, series_len=360, embed="timeF", seasonal_patterns=None,
    # forecasting task
    seq_len=48, label_len=24, pred_len=24, inverse=False,
    # model define
    enc_in=4, dec_in=4, c_out=4, d_model=32, dropout=0.1, moving_avg=25, seg_len=12,
    use_norm=1, subtract_last=1, stateful=1,
    # optimization
    num_workers=0, itr=1, train_epochs=10, batch_size=32, patience=20, learning_rate=0.005,
    des="Exp", lradj="type3", use_amp=False, accum_iter=2, clip_grad=1.0, smape_weight=0.01,
    log_interval=3, max_steps=0,
    # GPU
    use_gpu=False, gpu=0, use_multi_gpu=False, devices="0,1",
)


def main(steps=None, **overrides):
    fix_seed = 2021
    random.seed(fix_seed)
    torch.manual_seed(fix_seed)

    args = dotdict(DEFAULTS)
    args.update(overrides)
    if args.checkpoints is None:
        args.checkpoints = tempfile.mkdtemp(prefix="tsf_ckpt_")
    if steps is not None:
        args.max_steps = steps
        iters_per_epoch = math.ceil((int(args.series_len * 0.7) - args.seq_len - args.pred_len + 1) / args.batch_size)
        args.train_epochs = math.ceil(steps / iters_per_epoch)
    print_args(args)

    exp = Exp_Long_Term_Forecast(args)
    setting = "{}_{}_{}_{}_ft{}_sl{}_ll{}_pl{}_dm{}_{}_{}".format(
        args.task_name, args.model_id, args.model, args.data, args.features, args.seq_len,
        args.label_len, args.pred_len, args.d_model, args.des, 0)
    print(">>>>>>>start training : {}>>>>>>>>>>>>>>>>>>>>>>>>>>".format(setting))
    exp.train(setting)
    print(">>>>>>>testing : {}<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<<".format(setting))
    exp.test(setting)
    return exp


if __name__ == "__main__":
    main()
