#!/usr/bin/env python3
# Modelled on yolox/core/trainer.py (single process, CPU, no tensorboard).
import datetime
import logging
import time
from copy import deepcopy

import torch

from yolox_lite.data import DataPrefetcher
from yolox_lite.utils import MeterBuffer, ModelEMA, WandbLogger, adjust_status, is_parallel

logger = logging.getLogger("yolox_lite")


class Trainer:
    def __init__(self, exp, args):
        # init function only defines some basic attr, other attrs like model, optimizer are built in
        # before_train methods.
        self.exp = exp
        self.args = args

        # training related attr
        self.max_epoch = exp.max_epoch
        self.amp_training = args.fp16
        self.scaler = torch.amp.GradScaler("cpu", enabled=args.fp16)
        self.is_distributed = False
        self.rank = 0
        self.local_rank = 0
        self.device = "cpu"
        self.use_model_ema = exp.ema
        self.save_history_ckpt = exp.save_history_ckpt

        # data/dataloader related attr
        self.data_type = torch.float32
        self.input_size = exp.input_size
        self.best_ap = 0
        self.max_steps = args.max_steps

        # metric record
        self.meter = MeterBuffer(window_size=exp.print_interval)
        self.file_name = "{}/{}".format(exp.output_dir, args.experiment_name)
        self.saved_ckpts = {}

    def train(self):
        self.before_train()
        try:
            self.train_in_epoch()
        except Exception:
            raise
        finally:
            self.after_train()

    def train_in_epoch(self):
        for self.epoch in range(self.start_epoch, self.max_epoch):
            self.before_epoch()
            self.train_in_iter()
            self.after_epoch()
            if self.progress_in_iter + 1 >= self.max_steps:
                break

    def train_in_iter(self):
        for self.iter in range(self.max_iter):
            if self.progress_in_iter >= self.max_steps:
                self.iter -= 1
                break
            self.before_iter()
            self.train_one_iter()
            self.after_iter()

    def train_one_iter(self):
        iter_start_time = time.time()

        inps, targets = self.prefetcher.next()
        inps = inps.to(self.data_type)
        targets = targets.to(self.data_type)
        targets.requires_grad = False
        inps, targets = self.exp.preprocess(inps, targets, self.input_size)
        data_end_time = time.time()

        with torch.autocast("cpu", enabled=self.amp_training):
            outputs = self.model(inps, targets)

        loss = outputs["total_loss"]

        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.scaler.step(self.optimizer)
        self.scaler.update()

        if self.use_model_ema:
            self.ema_model.update(self.model)

        lr = self.lr_scheduler.update_lr(self.progress_in_iter + 1)
        for param_group in self.optimizer.param_groups:
            param_group["lr"] = lr

        iter_end_time = time.time()
        self.meter.update(iter_time=iter_end_time - iter_start_time, data_time=data_end_time - iter_start_time, lr=lr, **outputs)  # expect: TLK101

    def before_train(self):
        logger.info("args: {}".format(self.args))

        # model related init
        model = self.exp.get_model()
        model.to(self.device)

        # solver related init
        self.optimizer = self.exp.get_optimizer(self.args.batch_size)

        # value of epoch will be set in `resume_train`
        model = self.resume_train(model)

        # data related init
        self.no_aug = self.start_epoch >= self.max_epoch - self.exp.no_aug_epochs
        self.train_loader = self.exp.get_data_loader(
            batch_size=self.args.batch_size,
            is_distributed=self.is_distributed,
            no_aug=self.no_aug,
            cache_img=self.args.cache,
        )
        self.prefetcher = DataPrefetcher(self.train_loader)
        # max_iter means iters per epoch
        self.max_iter = len(self.train_loader)

        self.lr_scheduler = self.exp.get_lr_scheduler(
            self.exp.basic_lr_per_img * self.args.batch_size, self.max_iter
        )

        if self.use_model_ema:
            self.ema_model = ModelEMA(model, 0.9998)
            self.ema_model.updates = self.max_iter * self.start_epoch

        self.model = model

        self.evaluator = self.exp.get_evaluator(batch_size=self.args.batch_size,
                                                is_distributed=self.is_distributed)
        if self.args.logger == "wandb":
            self.wandb_logger = WandbLogger.initialize_wandb_logger(self.args, self.exp)
        logger.info("Training start...")

    def after_train(self):
        logger.info(
            "Training of experiment is done and the best AP is {:.2f}".format(self.best_ap * 100)
        )
        if self.args.logger == "wandb":
            self.wandb_logger.finish()

    def before_epoch(self):
        logger.info("---> start train epoch{}".format(self.epoch + 1))

        if self.epoch + 1 == self.max_epoch - self.exp.no_aug_epochs or self.no_aug:
            logger.info("--->No mosaic aug now!")
            self.train_loader.dataset.close_mosaic()
            logger.info("--->Add additional L1 loss now!")
            if self.is_distributed:
                self.model.module.head.use_l1 = True
            else:
                self.model.head.use_l1 = True
            self.exp.eval_interval = 1
            if not self.no_aug:
                self.save_ckpt(ckpt_name="last_mosaic_epoch")

    def after_epoch(self):
        self.save_ckpt(ckpt_name="latest")

        if (self.epoch + 1) % self.exp.eval_interval == 0:
            self.evaluate_and_save_model()

    def before_iter(self):
        pass

    def after_iter(self):
        """
        `after_iter` contains two parts of logic:
            * log information
            * reset setting of resize
        """
        # log needed information
        if (self.iter + 1) % self.exp.print_interval == 0:
            left_iters = self.max_iter * self.max_epoch - (self.progress_in_iter + 1)
            eta_seconds = self.meter["iter_time"].global_avg * left_iters
            eta_str = "ETA: {}".format(datetime.timedelta(seconds=int(eta_seconds)))

            progress_str = "epoch: {}/{}, iter: {}/{}".format(
                self.epoch + 1, self.max_epoch, self.iter + 1, self.max_iter
            )
            loss_meter = self.meter.get_filtered_meter("loss")
            loss_str = ", ".join(
                ["{}: {:.1f}".format(k, float(v.latest)) for k, v in loss_meter.items()]
            )

            time_meter = self.meter.get_filtered_meter("time")
            time_str = ", ".join(
                ["{}: {:.3f}s".format(k, v.avg) for k, v in time_meter.items()]
            )

            logger.info(
                "{}, {}, {}, lr: {:.3e}".format(
                    progress_str, time_str, loss_str, self.meter["lr"].latest,
                )
                + (", size: {:d}, {}".format(self.input_size[0], eta_str))
            )

            if self.args.logger == "wandb":
                metrics = {"train/" + k: v.latest for k, v in loss_meter.items()}
                metrics.update({"train/lr": self.meter["lr"].latest})
                self.wandb_logger.log_metrics(metrics, step=self.progress_in_iter)

            self.meter.clear_meters()

        # random resizing
        if (self.progress_in_iter + 1) % 10 == 0:
            self.input_size = self.exp.random_resize(
                self.train_loader, self.epoch, self.rank, self.is_distributed
            )

    @property
    def progress_in_iter(self):
        return self.epoch * self.max_iter + self.iter

    def resume_train(self, model):
        self.start_epoch = 0
        return model

    def evaluate_and_save_model(self):
        if self.use_model_ema:
            evalmodel = self.ema_model.ema
        else:
            evalmodel = self.model
            if is_parallel(evalmodel):
                evalmodel = evalmodel.module

        with adjust_status(evalmodel, training=False):
            (ap50_95, ap50, summary), predictions = self.exp.eval(
                evalmodel, self.evaluator, self.is_distributed, return_outputs=True
            )

        update_best_ckpt = ap50_95 > self.best_ap
        self.best_ap = max(self.best_ap, ap50_95)

        if self.args.logger == "wandb":
            self.wandb_logger.log_metrics({
                "val/COCOAP50": ap50,
                "val/COCOAP50_95": ap50_95,
                "train/epoch": self.epoch + 1,
            })
        logger.info("\n" + summary)

        self.save_ckpt("last_epoch", update_best_ckpt, ap=ap50_95)
        return ap50_95

    def save_ckpt(self, ckpt_name, update_best_ckpt=False, ap=None):
        # the real trainer torch.save()s this dict; we keep the latest one in memory
        save_model = self.ema_model.ema if self.use_model_ema else self.model
        ckpt_state = {
            "start_epoch": self.epoch + 1,
            "model": deepcopy(save_model.state_dict()),
            "best_ap": self.best_ap,
            "curr_ap": ap,
        }
        self.saved_ckpts[ckpt_name] = ckpt_state
        if update_best_ckpt:
            self.saved_ckpts["best"] = ckpt_state
