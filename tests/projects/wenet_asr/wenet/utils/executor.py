# Modelled on wenet-e2e/wenet (Apache-2.0), simplified for a CPU test; the upstream file's authors are credited there.
"""Executor: one training epoch / one cross-validation pass (wenet/utils/executor.py)."""
import copy
import logging
from contextlib import nullcontext

import torch

from wenet.utils.common import StepTimer, tensor_to_scalar
from wenet.utils.train_utils import (batch_backward, batch_forward,
                                     log_per_step, update_parameter_and_lr,
                                     wenet_join)


class Executor:

    def __init__(self, global_step: int = 0,
                 device: torch.device = torch.device("cpu")):
        self.step = global_step + 1
        self.train_step_timer = None
        self.cv_step_timer = None
        self.device = device
        self.reset_epoch_stats()

    def reset_epoch_stats(self):
        self.num_seen_utts = 0
        self.epoch_loss_dict = {}

    def epoch_stats(self):
        return {
            name: tensor_to_scalar(value) / max(self.num_seen_utts, 1)
            for name, value in self.epoch_loss_dict.items()
        }

    def train(self, model, optimizer, scheduler, train_data_loader,
              cv_data_loader, writer, configs, scaler, group_join=None):
        ''' Train one epoch
        '''
        if self.train_step_timer is None:
            self.train_step_timer = StepTimer(self.step)
        model.train()
        info_dict = copy.deepcopy(configs)
        logging.info('using accumulate grad, new batch size is {} times'
                     ' larger than before'.format(info_dict['accum_grad']))
        model_context = nullcontext

        self.reset_epoch_stats()
        with model_context():
            for batch_idx, batch_dict in enumerate(train_data_loader):
                info_dict["tag"] = "TRAIN"
                info_dict["step"] = self.step
                info_dict["batch_idx"] = batch_idx
                if wenet_join(group_join, info_dict):
                    break

                num_utts = batch_dict["target_lengths"].size(0)
                if num_utts == 0:
                    continue

                context = nullcontext
                with context():
                    info_dict = batch_forward(model, batch_dict, scaler,
                                              info_dict, self.device)
                    info_dict = batch_backward(model, scaler, info_dict)

                info_dict = update_parameter_and_lr(model, optimizer,
                                                    scheduler, scaler,
                                                    info_dict)
                # epoch statistics, reported once the epoch is over
                self.num_seen_utts += num_utts
                for loss_name, loss_value in info_dict['loss_dict'].items():
                    if loss_value is not None and "loss" in loss_name:
                        self.epoch_loss_dict[loss_name] = self.epoch_loss_dict.get(loss_name, 0) + loss_value * num_utts  # expect: TLK101
                # write training: tensorboard && log
                log_per_step(writer, info_dict, timer=self.train_step_timer)  # known-false: TLK102 (the author marked this leak at another line)
                self.step += 1 if (batch_idx +
                                   1) % info_dict["accum_grad"] == 0 else 0

    def cv(self, model, cv_data_loader, configs):
        ''' Cross validation on
        '''
        if self.cv_step_timer is None:
            self.cv_step_timer = StepTimer(0.0)
        else:
            self.cv_step_timer.last_iteration = 0.0
        model.eval()
        info_dict = copy.deepcopy(configs)
        num_seen_utts, loss_dict, total_acc = 1, {}, []  # avoid division by 0
        with torch.no_grad():
            for batch_idx, batch_dict in enumerate(cv_data_loader):
                info_dict["tag"] = "CV"
                info_dict["step"] = self.step
                info_dict["batch_idx"] = batch_idx
                info_dict["cv_step"] = batch_idx

                num_utts = batch_dict["target_lengths"].size(0)
                if num_utts == 0:
                    continue

                info_dict = batch_forward(model, batch_dict, None, info_dict,
                                          self.device)
                _dict = info_dict["loss_dict"]

                num_seen_utts += num_utts
                total_acc.append(_dict['th_accuracy'].item(
                ) if _dict.get('th_accuracy', None) is not None else 0.0)
                for loss_name, loss_value in _dict.items():
                    if loss_value is not None and "loss" in loss_name \
                            and torch.isfinite(loss_value):
                        loss_value = loss_value.item()
                        loss_dict[loss_name] = loss_dict.get(loss_name, 0) + \
                            loss_value * num_utts
                # write cv: log
                log_per_step(writer=None,
                             info_dict=info_dict,
                             timer=self.cv_step_timer)
        for loss_name, loss_value in loss_dict.items():
            loss_dict[loss_name] = loss_dict[loss_name] / num_seen_utts
        loss_dict["acc"] = sum(total_acc) / len(total_acc)
        return loss_dict
