# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
import torch
import torch.nn as nn

from ubteacher.modeling.backbone import TinyResBackbone
from ubteacher.modeling.proposal_generator.rpn import PseudoLabRPN
from ubteacher.modeling.roi_heads.roi_heads import StandardROIHeadsPseudoLab

META_ARCH_REGISTRY = {}


def register(cls):
    META_ARCH_REGISTRY[cls.__name__] = cls
    return cls


class ImageList:
    def __init__(self, tensor, image_sizes):
        self.tensor = tensor
        self.image_sizes = image_sizes


class GeneralizedRCNN(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        out_ch = cfg.MODEL.BACKBONE.OUT_CHANNELS
        self.backbone = TinyResBackbone(out_ch)
        self.proposal_generator = PseudoLabRPN(out_ch, cfg.MODEL.RPN.LOSS_WEIGHT)
        self.roi_heads = StandardROIHeadsPseudoLab(
            out_ch, cfg.MODEL.ROI_HEADS.HIDDEN_DIM, cfg.MODEL.ROI_HEADS.NUM_CLASSES,
            cfg.MODEL.ROI_HEADS.SCORE_EMA_MOMENTUM,
        )
        self.register_buffer("pixel_mean", torch.tensor([0.485, 0.456, 0.406]).view(-1, 1, 1), False)
        self.register_buffer("pixel_std", torch.tensor([0.229, 0.224, 0.225]).view(-1, 1, 1), False)

    @property
    def device(self):
        return self.pixel_mean.device

    def preprocess_image(self, batched_inputs):
        images = [(x["image"].to(self.device) - self.pixel_mean) / self.pixel_std for x in batched_inputs]
        return ImageList(torch.stack(images), [tuple(im.shape[-2:]) for im in images])

    def inference(self, batched_inputs):
        images = self.preprocess_image(batched_inputs)
        features = self.backbone(images.tensor)
        proposals, _ = self.proposal_generator(images, features, None, compute_loss=False)
        results, _, _ = self.roi_heads(images, features, proposals, None, compute_loss=False)
        return results


@register
class TwoStagePseudoLabGeneralizedRCNN(GeneralizedRCNN):
    def forward(self, batched_inputs, branch="supervised", given_proposals=None, val_mode=False):
        if (not self.training) and (not val_mode):
            return self.inference(batched_inputs)

        images = self.preprocess_image(batched_inputs)
        if "instances" in batched_inputs[0]:
            gt_instances = [x["instances"] for x in batched_inputs]
        else:
            gt_instances = None

        features = self.backbone(images.tensor)

        if branch == "supervised":
            proposals_rpn, proposal_losses = self.proposal_generator(images, features, gt_instances)
            _, detector_losses, predictions = self.roi_heads(
                images, features, proposals_rpn, gt_instances, branch=branch
            )
            losses = {}
            losses.update(detector_losses)
            losses.update(proposal_losses)
            return losses, proposals_rpn, [], predictions

        elif branch == "unsup_data_weak":
            proposals_rpn, _ = self.proposal_generator(images, features, None, compute_loss=False)
            proposals_roih, _, roi_predictions = self.roi_heads(
                images, features, proposals_rpn, targets=None, compute_loss=False, branch=branch
            )
            return {}, proposals_rpn, proposals_roih, roi_predictions

        elif branch == "val_loss":
            proposals_rpn, proposal_losses = self.proposal_generator(
                images, features, gt_instances, compute_val_loss=True
            )
            _, detector_losses, _ = self.roi_heads(
                images, features, proposals_rpn, gt_instances, branch=branch, compute_val_loss=True
            )
            losses = {}
            losses.update(detector_losses)
            losses.update(proposal_losses)
            return losses, [], [], None

        raise ValueError("Unknown branch {}".format(branch))


def build_model(cfg):
    model = META_ARCH_REGISTRY[cfg.MODEL.META_ARCHITECTURE](cfg)
    model.train()
    return model
