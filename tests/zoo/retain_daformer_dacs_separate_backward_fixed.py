# Source: https://github.com/lhoyer/DAFormer/issues/48
# Shape: _parse_losses hands .item() floats to the LogBuffer and the last backward frees its graph; the remaining retain_graph=self.enable_fdist on the source loss is needed because feat_loss backpropagates through src_feat afterwards.
# Verdict: clean
from collections import OrderedDict, defaultdict
from copy import deepcopy

import torch
import torch.nn as nn
import torch.nn.functional as F


class SegModel(nn.Module):
    def __init__(self, num_classes=4):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
                                      nn.Conv2d(16, 16, 3, padding=1), nn.ReLU())
        self.decode_head = nn.Conv2d(16, num_classes, 1)

    def extract_feat(self, img):
        return self.backbone(img)

    def encode_decode(self, img):
        return self.decode_head(self.extract_feat(img))

    def forward_train(self, img, gt_semantic_seg, seg_weight=None, return_feat=False):
        feat = self.extract_feat(img)
        logits = self.decode_head(feat)
        loss = F.cross_entropy(logits, gt_semantic_seg, reduction="none")
        if seg_weight is not None:
            loss = loss * seg_weight
        losses = {"decode.loss_seg": loss.mean()}
        if return_feat:
            losses["features"] = feat
        return losses


class LogBuffer:
    """mmcv-style buffer: values are kept in val_history until the epoch ends."""

    def __init__(self):
        self.val_history = defaultdict(list)
        self.n_history = defaultdict(list)
        self.output = OrderedDict()

    def update(self, vars, count=1):
        for key, var in vars.items():
            self.val_history[key].append(var)
            self.n_history[key].append(count)

    def average(self, n=0):
        for key in self.val_history:
            values = self.val_history[key][-n:]
            nums = self.n_history[key][-n:]
            self.output[key] = sum(float(v) * c for v, c in zip(values, nums)) / sum(nums)

    def clear_output(self):
        self.output.clear()


class DACS(nn.Module):
    def __init__(self, model, imnet_model, alpha=0.99, pseudo_threshold=0.6,
                 enable_fdist=True, fdist_lambda=0.005):
        super().__init__()
        self.model = model
        self.ema_model = deepcopy(model).requires_grad_(False)
        self.imnet_model = imnet_model.requires_grad_(False)
        self.alpha = alpha
        self.pseudo_threshold = pseudo_threshold
        self.enable_fdist = enable_fdist
        self.fdist_lambda = fdist_lambda
        self.local_iter = 0

    def _update_ema(self, iter):
        alpha_teacher = min(1 - 1 / (iter + 1), self.alpha)
        with torch.no_grad():
            for ema_param, param in zip(self.ema_model.parameters(), self.model.parameters()):
                ema_param.mul_(alpha_teacher).add_(param, alpha=1 - alpha_teacher)

    @staticmethod
    def _parse_losses(losses):
        log_vars = OrderedDict()
        for loss_name, loss_value in losses.items():
            log_vars[loss_name] = loss_value.mean()
        loss = sum(_value for _key, _value in log_vars.items() if "loss" in _key)
        log_vars["loss"] = loss
        for loss_name, loss_value in log_vars.items():
            log_vars[loss_name] = loss_value.item()
        return loss, log_vars

    def calc_feat_dist(self, img, feat):
        with torch.no_grad():
            self.imnet_model.eval()
            feat_imnet = self.imnet_model.extract_feat(img).detach()
        feat_dist = self.fdist_lambda * F.mse_loss(feat, feat_imnet)
        feat_loss, feat_log = self._parse_losses({"loss_imnet_feat_dist": feat_dist})
        feat_log.pop("loss", None)
        return feat_loss, feat_log

    def forward_train(self, img, gt_semantic_seg, target_img):
        log_vars = {}
        if self.local_iter > 0:
            self._update_ema(self.local_iter)

        # Train on source images
        clean_losses = self.model.forward_train(img, gt_semantic_seg, return_feat=True)
        src_feat = clean_losses.pop("features")
        clean_loss, clean_log_vars = self._parse_losses(clean_losses)
        log_vars.update(clean_log_vars)
        clean_loss.backward(retain_graph=self.enable_fdist)

        # ImageNet feature distance (backpropagates through src_feat again)
        if self.enable_fdist:
            feat_loss, feat_log = self.calc_feat_dist(img, src_feat)
            feat_loss.backward()
            log_vars.update({"src." + k: v for k, v in feat_log.items()})

        # Generate pseudo-label
        with torch.no_grad():
            ema_logits = self.ema_model.encode_decode(target_img)
        ema_softmax = torch.softmax(ema_logits.detach(), dim=1)
        pseudo_prob, pseudo_label = torch.max(ema_softmax, dim=1)
        ps_large_p = pseudo_prob.ge(self.pseudo_threshold).long() == 1
        pseudo_weight = torch.sum(ps_large_p).item() / ps_large_p.numel()
        pseudo_weight = pseudo_weight * torch.ones_like(pseudo_prob)

        # Apply (half-image) mixing
        mix_mask = torch.zeros_like(gt_semantic_seg, dtype=torch.bool)
        mix_mask[:, :, : gt_semantic_seg.size(-1) // 2] = True
        mixed_img = torch.where(mix_mask.unsqueeze(1), img, target_img)
        mixed_lbl = torch.where(mix_mask, gt_semantic_seg, pseudo_label)
        gt_pixel_weight = torch.ones_like(pseudo_weight)
        mixed_weight = torch.where(mix_mask, gt_pixel_weight, pseudo_weight)

        # Train on mixed images
        mix_losses = self.model.forward_train(mixed_img, mixed_lbl, mixed_weight, return_feat=True)
        mix_losses.pop("features")
        mix_loss, mix_log_vars = self._parse_losses({"mix." + k: v for k, v in mix_losses.items()})
        log_vars.update(mix_log_vars)
        mix_loss.backward()

        self.local_iter += 1
        return log_vars

    def train_step(self, data_batch, optimizer):
        optimizer.zero_grad()
        log_vars = self.forward_train(**data_batch)
        optimizer.step()
        log_vars.pop("loss", None)
        return dict(log_vars=log_vars, num_samples=data_batch["img"].size(0))


def make_batches(n):
    g = torch.Generator().manual_seed(8)
    batches = []
    for _ in range(n):
        gt = torch.randint(0, 4, (2, 8, 8), generator=g)
        img = F.one_hot(gt, 4).permute(0, 3, 1, 2)[:, :3].float() + 0.3 * torch.randn(2, 3, 8, 8, generator=g)
        tgt_gt = torch.randint(0, 4, (2, 8, 8), generator=g)
        target_img = 0.8 * F.one_hot(tgt_gt, 4).permute(0, 3, 1, 2)[:, :3].float() + 0.1 \
            + 0.3 * torch.randn(2, 3, 8, 8, generator=g)
        batches.append({"img": img, "gt_semantic_seg": gt, "target_img": target_img})
    return batches


def run(batches, probe=None):
    torch.manual_seed(0)
    uda = DACS(SegModel(), SegModel())
    optimizer = torch.optim.AdamW(uda.model.parameters(), lr=6e-3)
    log_buffer = LogBuffer()
    for i, data_batch in enumerate(batches):
        outputs = uda.train_step(data_batch, optimizer)
        log_buffer.update(outputs["log_vars"], outputs["num_samples"])
        if (i + 1) % 5 == 0:  # logger hook
            log_buffer.average(5)
            log_buffer.clear_output()
        if probe is not None:
            probe(i)
    first = float(log_buffer.val_history["decode.loss_seg"][0])
    last = float(log_buffer.val_history["decode.loss_seg"][-1])
    return {"first_src_loss": first, "last_src_loss": last}


if __name__ == "__main__":
    print(run(make_batches(5)))
