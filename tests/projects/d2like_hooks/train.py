#!/usr/bin/env python
"""
Training script with SimpleTrainer + hooks, in the style of detectron2's
tools/train_net.py / DefaultTrainer (without distributed launch or checkpointing).
"""
# Modelled on: https://github.com/facebookresearch/detectron2/blob/main/tools/train_net.py
import logging

import torch

from d2lite.config import get_cfg
from d2lite.data import build_detection_train_loader
from d2lite.engine import hooks
from d2lite.engine import SimpleTrainer
from d2lite.modeling import build_model
from d2lite.solver import build_lr_scheduler, build_optimizer
from d2lite.utils.events import CommonMetricPrinter, JSONWriter

logger = logging.getLogger("d2lite")


def default_writers(max_iter, json_lines):
    return [CommonMetricPrinter(max_iter), JSONWriter(json_lines)]


def setup(max_iter):
    cfg = get_cfg()
    cfg.SOLVER.MAX_ITER = max_iter
    return cfg


def do_train(cfg, model):
    optimizer = build_optimizer(cfg, model)
    scheduler = build_lr_scheduler(cfg, optimizer)
    data_loader = build_detection_train_loader(cfg)
    trainer = SimpleTrainer(model, data_loader, optimizer)

    json_lines = []
    vis_image = torch.Generator().manual_seed(123)
    vis_image = torch.randn(3, cfg.INPUT.SIZE, cfg.INPUT.SIZE, generator=vis_image)
    iters_per_epoch = cfg.SOLVER.IMS_PER_EPOCH // cfg.SOLVER.IMS_PER_BATCH
    epoch_hook = hooks.EpochSummary(iters_per_epoch)
    trainer.register_hooks([
        hooks.IterationTimer(),
        hooks.LRScheduler(optimizer, scheduler),
        epoch_hook,
        hooks.VisualizationHook(vis_image, period=cfg.MODEL.VIS_PERIOD),
        hooks.PeriodicWriter(default_writers(cfg.SOLVER.MAX_ITER, json_lines), period=cfg.OUTPUT_LOG_PERIOD),
    ])
    trainer.train(0, cfg.SOLVER.MAX_ITER)
    return trainer, json_lines, epoch_hook


def main(steps=10):
    torch.manual_seed(0)
    cfg = setup(steps)
    model = build_model(cfg)
    trainer, json_lines, epoch_hook = do_train(cfg, model)
    return dict(
        model=model,
        trainer=trainer,
        storage=trainer.storage,
        json_lines=json_lines,
        epoch_losses=epoch_hook.epoch_losses,
    )


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    out = main(25)
    print(out["json_lines"][-1])
