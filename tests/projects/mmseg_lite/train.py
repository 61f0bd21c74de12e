# Modelled on: https://github.com/open-mmlab/mmengine
"""Train the prototype segmentor with the runner (tools/train.py of an OpenMMLab project).

Follows mmengine's runner/loops.py, hooks/*, logging/message_hub.py and
model/base_model/base_model.py, in the package layout of open-mmlab/mmengine-template.
"""
import torch

from mmseg_lite.datasets.synthetic import SyntheticSegDataset, build_dataloader
from mmseg_lite.engine import Runner
from mmseg_lite.models import ProtoSegmentor
from mmseg_lite.setup_env import register_all_modules

cfg = dict(
    model=dict(in_channels=3, embed_dims=16, num_classes=3, proto_weight=0.1,
               proto_momentum=0.9),
    train_batch_size=4,
    optim_wrapper=dict(optimizer=dict(type='SGD', lr=0.05, momentum=0.9),
                       clip_grad=dict(max_norm=5.0)),
    default_hooks=dict(runtime_info=dict(type='RuntimeInfoHook'),
                       logger=dict(type='LoggerHook', interval=5)),
    custom_hooks=[dict(type='TrainDiceHook'), dict(type='EMAHook', momentum=0.01)],
    val_evaluator=dict(type='IoUMetric', num_classes=3),
)


def main(steps):
    """Train ``steps`` iterations; returns the runner (model, message hub, hooks)."""
    register_all_modules()
    torch.manual_seed(0)
    train_set = SyntheticSegDataset(num_samples=32, seed=0)
    val_set = SyntheticSegDataset(num_samples=8, seed=1)
    runner = Runner(
        model=ProtoSegmentor(**cfg['model']),
        train_dataloader=build_dataloader(train_set, cfg['train_batch_size']),
        val_dataloader=build_dataloader(val_set, cfg['train_batch_size']),
        val_evaluator=cfg['val_evaluator'],
        optim_wrapper=cfg['optim_wrapper'],
        train_cfg=dict(by_epoch=False, max_iters=steps, val_interval=steps),
        default_hooks=cfg['default_hooks'],
        custom_hooks=cfg['custom_hooks'],
        experiment_name='proto_seg_synthetic',
    )
    runner.train()
    return runner


if __name__ == '__main__':
    r = main(20)
    print('\n'.join(r.logger_lines))
    print(r.message_hub.get_scalar('val/mIoU').current(), r.message_hub.get_info('train/mean_dice'))
