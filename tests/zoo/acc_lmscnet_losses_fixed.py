# Source: https://github.com/astra-vision/LMSCNet/blob/cb205f28e4ea42aafd3724daeba635e8f88e6115/LMSCNet/common/metrics.py
# Shape: the same program as acc_lmscnet_losses.py with its leak fixed; the look-alikes it keeps must stay silent.
# Verdict: clean
import logging
from collections import defaultdict

import torch
import torch.nn as nn
import torch.nn.functional as F

logger = logging.getLogger("LMSCNet")

_CFG = {
    "TRAIN": {"SUMMARY_PERIOD": 5},
    "OPTIMIZER": {"BASE_LR": 1e-3, "MOMENTUM": 0.9},
    "SCHEDULER": {"FREQUENCY": "iteration", "LR_POWER": 0.98},
    "MODEL": {"NCLASS": 5, "HEIGHT": 8, "GRID": 16},
}


def make_batches(n, cfg=_CFG, seed=0):
    g = torch.Generator().manual_seed(seed)
    m = cfg["MODEL"]
    batches = []
    for _ in range(n):
        occ = (torch.rand(2, m["HEIGHT"], m["GRID"], m["GRID"], generator=g) > 0.7).float()
        labels = torch.randint(0, m["NCLASS"], (2, m["HEIGHT"], m["GRID"], m["GRID"]), generator=g)
        labels[occ == 0] = 0
        labels[:, :, :2] = 255  # unknown voxels
        batches.append({"3D_OCCUPANCY": occ, "3D_LABEL": {"1_1": labels, "1_2": labels[:, ::2, ::2, ::2].clone()}})
    return batches


def dict_to(data, device, dtype):
    out = {}
    for k, v in data.items():
        out[k] = dict_to(v, device, dtype) if isinstance(v, dict) else (v.to(device=device, dtype=dtype) if v.is_floating_point() else v.to(device))
    return out


class SegmentationHead(nn.Module):
    def __init__(self, inplanes, planes, nbr_classes):
        super().__init__()
        self.conv0 = nn.Conv3d(inplanes, planes, 3, padding=1)
        self.conv_classes = nn.Conv3d(planes, nbr_classes, 3, padding=1)

    def forward(self, x_in):
        x_in = F.relu(self.conv0(x_in.unsqueeze(1) if x_in.dim() == 4 else x_in))
        return self.conv_classes(x_in)


class LMSCNetLite(nn.Module):
    """2D UNet over the BEV grid with height as channels, 3D heads at two scales."""

    def __init__(self, class_num, height, class_frequencies):
        super().__init__()
        self.nbr_classes = class_num
        self.h = height
        self.class_frequencies = class_frequencies
        self.Encoder_block1 = nn.Sequential(nn.Conv2d(height, 16, 3, padding=1), nn.ReLU())
        self.Encoder_block2 = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(16, 24, 3, padding=1), nn.ReLU())
        self.conv_out_scale_1_2 = nn.Conv2d(24, height // 2, 3, padding=1)
        self.deconv_1_2__1_1 = nn.ConvTranspose2d(height // 2, 16, 2, stride=2)
        self.conv_out_scale_1_1 = nn.Conv2d(16 + 16, height, 3, padding=1)
        self.seg_head_1_2 = SegmentationHead(1, 4, class_num)
        self.seg_head_1_1 = SegmentationHead(1, 4, class_num)

    def forward(self, x):
        inp = x["3D_OCCUPANCY"]
        skip1 = self.Encoder_block1(inp)
        enc2 = self.Encoder_block2(skip1)
        out_1_2 = self.conv_out_scale_1_2(enc2)
        up = self.deconv_1_2__1_1(out_1_2)
        out_1_1 = self.conv_out_scale_1_1(torch.cat([up, skip1], 1))
        return {"pred_semantic_1_1": self.seg_head_1_1(out_1_1), "pred_semantic_1_2": self.seg_head_1_2(out_1_2)}

    def compute_loss(self, scores, data):
        target = data["3D_LABEL"]
        class_weights = self.get_class_weights()
        loss_1_1 = F.cross_entropy(scores["pred_semantic_1_1"], target["1_1"].long(), weight=class_weights, ignore_index=255)
        loss_1_2 = F.cross_entropy(scores["pred_semantic_1_2"], target["1_2"].long(), weight=class_weights, ignore_index=255)
        loss_total = (loss_1_1 + loss_1_2) / 2
        return {"total": loss_total, "semantic_1_1": loss_1_1, "semantic_1_2": loss_1_2}

    def get_class_weights(self):
        epsilon_w = 0.001
        return (1 / torch.log(self.class_frequencies + epsilon_w)).float()

    def get_target(self, data):
        return {"1_1": data["3D_LABEL"]["1_1"], "1_2": data["3D_LABEL"]["1_2"]}

    def get_scales(self):
        return ["1_1", "1_2"]

    def get_train_loss_keys(self):
        return ["total", "semantic_1_1", "semantic_1_2"]


class iouEval:
    def __init__(self, n_classes, ignore=None):
        self.n_classes = n_classes
        self.ignore = list(ignore or [])
        self.include = torch.tensor([n for n in range(n_classes) if n not in self.ignore], dtype=torch.long)
        self.reset()

    def reset(self):
        self.conf_matrix = torch.zeros((self.n_classes, self.n_classes), dtype=torch.long)

    def addBatch(self, x, y):  # x=preds, y=targets (int64, already on cpu)
        idx = x.reshape(-1) * self.n_classes + y.reshape(-1)
        self.conf_matrix += torch.bincount(idx, minlength=self.n_classes ** 2).view(self.n_classes, self.n_classes)

    def getIoU(self):
        conf = self.conf_matrix.clone().double()
        tp = conf.diag()
        fp = conf.sum(dim=1) - tp
        fn = conf.sum(dim=0) - tp
        iou = tp / (tp + fp + fn + 1e-15)
        return iou[self.include].mean().item(), iou


class LossesTrackEpoch:
    def __init__(self, num_iterations):
        self.num_iterations = num_iterations
        self.train_losses = {}
        self.train_iteration_counts = 0

    def set_train_losses(self, keys):
        for key in keys:
            self.train_losses[key] = 0

    def update_train_losses(self, loss):
        for key in loss:
            self.train_losses[key] += loss[key].item()
        self.train_iteration_counts += 1

    def restart_train_losses(self):
        for key in self.train_losses.keys():
            self.train_losses[key] = 0
        self.train_iteration_counts = 0


class Metrics:
    def __init__(self, nbr_classes, num_iterations_epoch, scales):
        self.nbr_classes = nbr_classes
        self.evaluator = {scale: iouEval(nbr_classes, []) for scale in scales}
        self.losses_track = LossesTrackEpoch(num_iterations_epoch)
        self.best_metric_record = {"mIoU": 0, "IoU": 0, "epoch": 0, "loss": 99999999}

    def add_batch(self, prediction, target):
        # passing to cpu
        for key in prediction:
            prediction[key] = torch.argmax(prediction[key], dim=1).data.cpu()
        for key in target:
            tgt = target[key].data.cpu().long().reshape(-1)
            pred = prediction["pred_semantic_" + key].reshape(-1)
            mask = tgt != 255
            self.evaluator[key].addBatch(pred[mask], tgt[mask])

    def get_semantics_mIoU(self, scale):
        _, class_jaccard = self.evaluator[scale].getIoU()
        return class_jaccard[1:].mean().item()

    def reset_evaluator(self):
        for key in self.evaluator:
            self.evaluator[key].reset()


class ScalarWriter:
    """Minimal stand-in for the tensorboard SummaryWriter used by the repo."""

    def __init__(self):
        self.scalars = defaultdict(list)

    def add_scalar(self, tag, value, step):
        self.scalars[tag].append((step, float(value)))


def build_optimizer(cfg, model):
    return torch.optim.SGD(model.parameters(), lr=cfg["OPTIMIZER"]["BASE_LR"], momentum=cfg["OPTIMIZER"]["MOMENTUM"])


def build_scheduler(cfg, optimizer):
    power = cfg["SCHEDULER"]["LR_POWER"]
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: power ** it)


def train(model, optimizer, scheduler, dset, cfg, epoch, tbwriter, metrics):
    model.train()
    metrics.losses_track.restart_train_losses()
    metrics.reset_evaluator()
    for t, data in enumerate(dset):
        data = dict_to(data, torch.device("cpu"), torch.float32)
        scores = model(data)
        loss = model.compute_loss(scores, data)

        optimizer.zero_grad()
        loss["total"].backward()
        optimizer.step()
        if cfg["SCHEDULER"]["FREQUENCY"] == "iteration":
            scheduler.step()

        for l_key in loss:
            tbwriter.add_scalar("train_loss_batch/{}".format(l_key), loss[l_key].item(), len(dset) * (epoch - 1) + t)
        # Updating batch losses to then get mean for epoch loss
        metrics.losses_track.update_train_losses(loss)

        if (t + 1) % cfg["TRAIN"]["SUMMARY_PERIOD"] == 0:
            loss_print = "=> Epoch [{}], Iteration [{}/{}], Train Losses: ".format(epoch, t + 1, len(dset))
            for key in loss.keys():
                loss_print += "{} = {:.6f},  ".format(key, loss[key])
            logger.info(loss_print[:-3])

        metrics.add_batch(prediction=scores, target=model.get_target(data))

    epoch_loss = metrics.losses_track.train_losses["total"] / metrics.losses_track.train_iteration_counts
    logger.info("=> [Epoch {} - Total Train Loss = {}]".format(epoch, epoch_loss))
    for scale in metrics.evaluator.keys():
        tbwriter.add_scalar("train_performance/{}/mIoU".format(scale), metrics.get_semantics_mIoU(scale), epoch - 1)
    return epoch_loss


def run(steps):
    """One training epoch of `steps` iterations; returns what the routine keeps (model + Metrics)."""
    torch.manual_seed(0)
    cfg = _CFG
    freqs = torch.tensor([5e4, 800.0, 600.0, 300.0, 200.0], dtype=torch.float64)
    model = LMSCNetLite(cfg["MODEL"]["NCLASS"], cfg["MODEL"]["HEIGHT"], freqs)
    optimizer = build_optimizer(cfg, model)
    scheduler = build_scheduler(cfg, optimizer)
    dset = make_batches(steps, cfg)
    metrics = Metrics(cfg["MODEL"]["NCLASS"], len(dset), model.get_scales())
    metrics.losses_track.set_train_losses(model.get_train_loss_keys())
    tbwriter = ScalarWriter()
    epoch_loss = train(model, optimizer, scheduler, dset, cfg, 1, tbwriter, metrics)
    return {"model": model, "metrics": metrics, "epoch_loss": epoch_loss, "writer": tbwriter}


if __name__ == "__main__":
    run(10)
