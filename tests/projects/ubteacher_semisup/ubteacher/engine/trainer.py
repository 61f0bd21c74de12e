# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import logging
import time
from collections import OrderedDict

import torch

from ubteacher.data.build import (
    build_detection_semisup_train_loader_two_crops,
    build_detection_test_loader,
)
from ubteacher.engine import hooks
from ubteacher.engine.hooks import LossEvalHook, PseudoScoreHistogramHook
from ubteacher.engine.train_loop import SimpleTrainer, TrainerBase
from ubteacher.modeling.meta_arch.rcnn import build_model
from ubteacher.modeling.meta_arch.ts_ensemble import EnsembleTSModel
from ubteacher.utils.meters import AverageMeter

logger = logging.getLogger(__name__)


class DefaultTrainer(TrainerBase):
    @classmethod
    def build_model(cls, cfg):
        return build_model(cfg)

    @classmethod
    def build_optimizer(cls, cfg, model):
        return torch.optim.SGD(
            model.parameters(), lr=cfg.SOLVER.BASE_LR, momentum=cfg.SOLVER.MOMENTUM,
            weight_decay=cfg.SOLVER.WEIGHT_DECAY,
        )

    @classmethod
    def build_lr_scheduler(cls, cfg, optimizer):
        return torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda it: min(1.0, (it + 1) / 10.0)
        )

    @property
    def model(self):
        return self._trainer.model

    @property
    def optimizer(self):
        return self._trainer.optimizer


# Unbiased Teacher Trainer
class UBTeacherTrainer(DefaultTrainer):
    def __init__(self, cfg):
        data_loader = self.build_train_loader(cfg)

        # create an student model
        model = self.build_model(cfg)
        optimizer = self.build_optimizer(cfg, model)

        # create an teacher model
        model_teacher = self.build_model(cfg)
        self.model_teacher = model_teacher

        TrainerBase.__init__(self)
        self._trainer = SimpleTrainer(model, data_loader, optimizer)
        self.scheduler = self.build_lr_scheduler(cfg, optimizer)

        # Ensemble teacher and student model is for model saving and loading
        self.ensem_ts_model = EnsembleTSModel(model_teacher, model)

        self.start_iter = 0
        self.max_iter = cfg.SOLVER.MAX_ITER
        self.cfg = cfg
        self.pseudo_conf_meter = AverageMeter("student_conf_on_pseudo")
        self.last_unsup_predictions = None

        self.register_hooks(self.build_hooks())

    def resume_or_load(self, resume=True):
        # no checkpoint on disk in this synthetic setup: start from scratch
        self.start_iter = 0

    @classmethod
    def build_train_loader(cls, cfg):
        return build_detection_semisup_train_loader_two_crops(cfg)

    def train(self):
        self.train_loop(self.start_iter, self.max_iter)
        return self.storage.latest()

    def train_loop(self, start_iter: int, max_iter: int):
        logger.info("Starting training from iteration %d", start_iter)
        TrainerBase.train(self, start_iter, max_iter)

    def run_step(self):
        self.run_step_full_semisup()

    def after_step(self):
        # hooks may look at the student's predictions of this step; drop them afterwards so
        # the step's graph is not kept until the next iteration
        super().after_step()
        self.last_unsup_predictions = None

    # =====================================================
    # ================== Pseduo-labeling ==================
    # =====================================================
    def threshold_bbox(self, proposal_bbox_inst, thres):
        scores = proposal_bbox_inst["scores"]
        classes = proposal_bbox_inst["pred_classes"]
        if torch.is_tensor(thres) and thres.dim() == 1:
            valid_map = scores > thres[classes]
        else:
            valid_map = scores > thres
        gt_classes = torch.full_like(classes, self.cfg.MODEL.ROI_HEADS.NUM_CLASSES)
        gt_classes[valid_map] = classes[valid_map]
        new_proposal_inst = {
            "gt_classes": gt_classes,
            "gt_boxes": proposal_bbox_inst["pred_boxes"],
            "num_classes": self.cfg.MODEL.ROI_HEADS.NUM_CLASSES,
        }
        return new_proposal_inst, int(valid_map.sum())

    def process_pseudo_label(self, proposals_roih_unsup_k, cur_threshold):
        list_instances = []
        num_proposal_output = 0.0
        for proposal_bbox_inst in proposals_roih_unsup_k:
            inst, n = self.threshold_bbox(proposal_bbox_inst, cur_threshold)
            num_proposal_output += n
            list_instances.append(inst)
        num_proposal_output = num_proposal_output / len(proposals_roih_unsup_k)
        return list_instances, num_proposal_output

    def remove_label(self, label_data):
        for label_datum in label_data:
            if "instances" in label_datum.keys():
                del label_datum["instances"]
        return label_data

    def add_label(self, unlabled_data, label):
        for unlabel_datum, lab_inst in zip(unlabled_data, label):
            unlabel_datum["instances"] = lab_inst
        return unlabled_data

    # =====================================================
    # =================== Training Flow ===================
    # =====================================================
    def run_step_full_semisup(self):
        self._trainer.iter = self.iter
        assert self.model.training, "[UBTeacherTrainer] model was changed to eval mode!"
        start = time.perf_counter()
        data = next(self._trainer._data_loader_iter)
        # data_q and data_k from different augmentations (q:strong, k:weak)
        label_data_q, label_data_k, unlabel_data_q, unlabel_data_k = data
        data_time = time.perf_counter() - start

        unlabel_data_q = self.remove_label(unlabel_data_q)
        unlabel_data_k = self.remove_label(unlabel_data_k)

        if self.iter < self.cfg.SEMISUPNET.BURN_UP_STEP:
            label_data_q.extend(label_data_k)
            record_dict, _, _, _ = self.model(label_data_q, branch="supervised")
            loss_dict = {}
            for key in record_dict.keys():
                if key[:4] == "loss":
                    loss_dict[key] = record_dict[key] * 1
            losses = sum(loss_dict.values())
        else:
            if self.iter == self.cfg.SEMISUPNET.BURN_UP_STEP:
                self._update_teacher_model(keep_rate=0.00)
            elif (self.iter - self.cfg.SEMISUPNET.BURN_UP_STEP) % self.cfg.SEMISUPNET.TEACHER_UPDATE_ITER == 0:
                self._update_teacher_model(keep_rate=self.cfg.SEMISUPNET.EMA_KEEP_RATE)

            record_dict = {}
            with torch.no_grad():
                _, _, proposals_roih_unsup_k, _ = self.model_teacher(
                    unlabel_data_k, branch="unsup_data_weak"
                )
                cur_threshold = self.model.roi_heads.class_thresholds(self.cfg.SEMISUPNET.BBOX_THRESHOLD)

            pesudo_proposals_roih_unsup_k, num_pseudo_bbox = self.process_pseudo_label(
                proposals_roih_unsup_k, cur_threshold
            )
            unlabel_data_q = self.add_label(unlabel_data_q, pesudo_proposals_roih_unsup_k)

            all_label_data = label_data_q + label_data_k
            all_unlabel_data = unlabel_data_q

            record_all_label_data, _, _, _ = self.model(all_label_data, branch="supervised")
            record_dict.update(record_all_label_data)
            record_all_unlabel_data, _, _, unsup_predictions = self.model(
                all_unlabel_data, branch="supervised"
            )
            self.last_unsup_predictions = unsup_predictions
            new_record_all_unlabel_data = {}
            for key in record_all_unlabel_data.keys():
                new_record_all_unlabel_data[key + "_pseudo"] = record_all_unlabel_data[key]
            record_dict.update(new_record_all_unlabel_data)

            # how confident is the student on what the teacher kept? (feeds the epoch summary)
            student_conf = self._student_confidence(unsup_predictions, pesudo_proposals_roih_unsup_k)
            self.pseudo_conf_meter.update(student_conf, n=len(all_unlabel_data))  # known-miss: TLK101
            record_dict["bbox_num/pseudo_roih"] = num_pseudo_bbox

            loss_dict = {}
            for key in record_dict.keys():
                if key[:4] == "loss":
                    if key == "loss_rpn_loc_pseudo" or key == "loss_box_reg_pseudo":
                        loss_dict[key] = record_dict[key] * 0
                    elif key[-6:] == "pseudo":
                        loss_dict[key] = record_dict[key] * self.cfg.SEMISUPNET.UNSUP_LOSS_WEIGHT
                    else:
                        loss_dict[key] = record_dict[key] * 1
            losses = sum(loss_dict.values())

        metrics_dict = record_dict
        metrics_dict["data_time"] = data_time
        self._write_metrics(metrics_dict)

        self.optimizer.zero_grad()
        losses.backward()
        self.optimizer.step()

    def _student_confidence(self, predictions, pseudo_instances):
        logits, _ = predictions
        gt_classes = torch.cat([inst["gt_classes"] for inst in pseudo_instances])
        probs = torch.softmax(logits, dim=-1)
        picked = probs.gather(1, gt_classes.view(-1, 1)).squeeze(1)
        return picked.mean()

    def _write_metrics(self, metrics_dict: dict):
        metrics_dict = {
            k: v.detach().cpu().item() if isinstance(v, torch.Tensor) else float(v)
            for k, v in metrics_dict.items()
        }
        data_time = metrics_dict.pop("data_time")
        self.storage.put_scalar("data_time", data_time)

        loss_dict = {}
        for key in metrics_dict.keys():
            if key[:4] == "loss":
                loss_dict[key] = metrics_dict[key]
        total_losses_reduced = sum(loss for loss in loss_dict.values())
        self.storage.put_scalar("total_loss", total_losses_reduced)
        if len(metrics_dict) > 1:
            self.storage.put_scalars(**metrics_dict)

    @torch.no_grad()
    def _update_teacher_model(self, keep_rate=0.996):
        student_model_dict = self.model.state_dict()
        new_teacher_dict = OrderedDict()
        for key, value in self.model_teacher.state_dict().items():
            if key in student_model_dict.keys():
                new_teacher_dict[key] = student_model_dict[key] * (1 - keep_rate) + value * keep_rate
            else:
                raise Exception("{} is not found in student model".format(key))
        self.model_teacher.load_state_dict(new_teacher_dict)

    def build_hooks(self):
        cfg = self.cfg.clone()
        cfg.defrost()
        ret = [
            hooks.IterationTimer(),
            hooks.LRScheduler(self.optimizer, self.scheduler),
        ]
        ret.append(LossEvalHook(cfg.TEST.EVAL_PERIOD, self.model, build_detection_test_loader(cfg),
                                model_output="loss_proposal", model_name="_student"))
        ret.append(PseudoScoreHistogramHook(cfg.SEMISUPNET.HIST_PERIOD, cfg.MODEL.ROI_HEADS.NUM_CLASSES))
        ret.append(hooks.PeriodicWriter(period=20))
        return ret
