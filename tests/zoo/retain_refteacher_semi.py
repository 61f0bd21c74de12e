# Source: https://github.com/Disguiser15/RefTeacher/issues/3
# Shape: The fp32 branch calls loss.backward(retain_graph=True) although the graph is never backwarded again, so every step's student activations stay allocated while anything references the loss; one AverageMeter (losses_semi) is updated with the loss_semi tensor instead of loss_semi.item(), its running sum chains every step's retained graph, so memory grows for the whole run.
# Verdict: leak
"""Teacher-student semi-supervised referring expression comprehension in the style
of RefTeacher's train_semi_refteacher.py: burn-in on labelled data, EMA teacher
that produces filtered pseudo boxes/masks for unlabelled pairs, a student that
returns supervised and semi-supervised det/seg losses, AverageMeter/ProgressMeter
logging to a SummaryWriter.  Tiny conv/text model, synthetic data, CPU."""
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Cfg:
    BURN_UP = 3
    SEMI_LOSS_WEIGHT = 1.0
    SEMI_EMA = 0.99
    FILTER_THRE = 0.3
    GRAD_NORM_CLIP = 0.15
    PRINT_FREQ = 5
    LR = 1e-3


class AverageMeter:
    """Computes and stores the average and current value"""

    def __init__(self, name, fmt=":f"):
        self.name, self.fmt = name, fmt
        self.reset()

    def reset(self):
        self.val = 0
        self.avg = 0
        self.sum = 0
        self.count = 0
        self.avg_reduce = 0.0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count

    def update_reduce(self, val):
        self.avg_reduce = val


def reduce_meters(meters, rank, cfg):
    for name, meter in meters.items():
        meter.update_reduce(meter.avg)


class SummaryWriter:
    def __init__(self):
        self.scalars = []

    def add_scalar(self, tag, value, global_step=None):
        self.scalars.append((tag, float(value), global_step))


class SimpleREC(nn.Module):
    def __init__(self, vocab=30, dim=32, mask_size=8):
        super().__init__()
        self.visual = nn.Sequential(nn.Conv2d(3, dim, 3, stride=2, padding=1), nn.ReLU(),
                                    nn.Conv2d(dim, dim, 3, padding=1), nn.ReLU())
        self.lang = nn.Embedding(vocab, dim)
        self.fuse = nn.Conv2d(2 * dim, dim, 1)
        self.det_head = nn.Linear(dim, 5)  # x, y, w, h, conf
        self.seg_head = nn.Conv2d(dim, 1, 1)
        self.mask_size = mask_size

    def _forward(self, image, ref):
        v = self.visual(image)
        t = self.lang(ref).mean(1)[:, :, None, None].expand_as(v)
        f = F.relu(self.fuse(torch.cat([v, t], 1)))
        box = self.det_head(f.mean((2, 3)))
        box = torch.cat([torch.sigmoid(box[:, :4]), torch.sigmoid(box[:, 4:])], 1)
        mask = self.seg_head(f)
        return box, mask

    def forward(self, image, ref, det_label=None, seg_label=None, semi=False, n_sup=None,
                confidence_map=None, weight=None):
        box, mask = self._forward(image, ref)
        if det_label is None:
            return box, torch.sigmoid(mask)
        n_sup = image.shape[0] if n_sup is None else n_sup
        loss_det_sup = F.l1_loss(box[:n_sup, :4], det_label[:n_sup, :4])
        loss_seg_sup = F.binary_cross_entropy_with_logits(mask[:n_sup], seg_label[:n_sup])
        loss_sup = loss_det_sup + loss_seg_sup
        if not semi or n_sup == image.shape[0]:
            zero = box.sum() * 0
            return loss_sup, loss_det_sup, loss_seg_sup, zero, zero, zero
        w = weight[:, None]
        loss_det_semi = (F.l1_loss(box[n_sup:, :4], det_label[n_sup:, :4], reduction="none") * w).mean()
        loss_seg_semi = (F.binary_cross_entropy_with_logits(mask[n_sup:], seg_label[n_sup:], reduction="none")
                         * confidence_map).mean()
        loss_semi = loss_det_semi + loss_seg_semi
        return loss_sup, loss_det_sup, loss_seg_sup, loss_semi, loss_det_semi, loss_seg_semi


@torch.no_grad()
def _update_teacher_model(student, teacher, keep_rate=0.996):
    student_dict = student.state_dict()
    new_teacher_dict = {}
    for key, value in teacher.state_dict().items():
        new_teacher_dict[key] = student_dict[key] * (1 - keep_rate) + value * keep_rate
    teacher.load_state_dict(new_teacher_dict)


def train_one_epoch(cfg, student, teacher, optimizer, scheduler, loader, unlabel_loader, writer, meters, epoch=0):
    student.train()
    teacher.eval()
    batches = len(loader)
    for ith_batch, ((ref_iter, image_iter, mask_iter, box_iter), (ref_u, image_u)) in enumerate(zip(loader, unlabel_loader)):
        ni = ith_batch + epoch * batches
        n_sup = image_iter.shape[0]
        weight = pseudo_confidence_map = None
        if ni >= cfg.BURN_UP:
            with torch.no_grad():
                pseudo_box, pseudo_mask = teacher(image_u, ref_u)
            keep = pseudo_box[:, 4] > cfg.FILTER_THRE
            if keep.any():
                pseudo_confidence_map = (pseudo_mask[keep] - 0.5).abs() * 2
                weight = pseudo_box[keep, 4]
                image_iter = torch.cat([image_iter, image_u[keep].clone()], 0)
                ref_iter = torch.cat([ref_iter, ref_u[keep].clone()], 0)
                box_iter = torch.cat([box_iter, pseudo_box[keep]], 0)
                mask_iter = torch.cat([mask_iter, (pseudo_mask[keep] > 0.5).float()], 0)

        loss_sup, loss_det_sup, loss_seg_sup, loss_semi, loss_det_semi, loss_seg_semi = student(
            image_iter, ref_iter, det_label=box_iter, seg_label=mask_iter, semi=True, n_sup=n_sup,
            confidence_map=pseudo_confidence_map, weight=weight)
        loss = loss_sup + loss_semi * cfg.SEMI_LOSS_WEIGHT

        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK201
        if cfg.GRAD_NORM_CLIP > 0:
            nn.utils.clip_grad_norm_(student.parameters(), cfg.GRAD_NORM_CLIP)
        optimizer.step()
        scheduler.step()
        if ni >= cfg.BURN_UP:
            _update_teacher_model(student, teacher, keep_rate=cfg.SEMI_EMA)

        meters["loss_sup"].update(loss_sup.item(), image_iter.size(0))
        meters["loss_det_sup"].update(loss_det_sup.item(), image_iter.size(0))
        meters["loss_seg_sup"].update(loss_seg_sup.item(), image_iter.size(0))
        meters["loss_semi"].update(loss_semi, image_iter.size(0))  # TLK101
        meters["loss_det_semi"].update(loss_det_semi.item(), image_iter.size(0))
        meters["loss_seg_semi"].update(loss_seg_semi.item(), image_iter.size(0))
        meters["lr"].update(optimizer.param_groups[0]["lr"], -1)
        reduce_meters(meters, 0, cfg)
        global_step = epoch * batches + ith_batch
        writer.add_scalar("loss_sup/train", meters["loss_sup"].avg_reduce, global_step=global_step)
        writer.add_scalar("loss_semi/train", meters["loss_semi"].avg_reduce, global_step=global_step)
        writer.add_scalar("lr/train", optimizer.param_groups[0]["lr"], global_step=global_step)


def _sample(n, vocab=30):
    ref = torch.randint(0, vocab, (n, 6))
    image = torch.rand(n, 3, 16, 16)
    mask = (torch.rand(n, 1, 8, 8) > 0.7).float()
    box = torch.rand(n, 5)
    return ref, image, mask, box


def make_batches(n, b=4):
    torch.manual_seed(0)
    labelled = [_sample(b) for _ in range(n)]
    unlabelled = [_sample(b)[:2] for _ in range(n)]
    return labelled, unlabelled


def run(steps, cfg=Cfg):
    student = SimpleREC()
    teacher = copy.deepcopy(student)
    for p in teacher.parameters():
        p.requires_grad_(False)
    optimizer = torch.optim.Adam(student.parameters(), lr=cfg.LR)
    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda it: min(1.0, (it + 1) / 5))
    meters = {k: AverageMeter(k) for k in ["loss_sup", "loss_det_sup", "loss_seg_sup", "loss_semi",
                                           "loss_det_semi", "loss_seg_semi", "lr"]}
    writer = SummaryWriter()
    labelled, unlabelled = make_batches(steps)
    train_one_epoch(cfg, student, teacher, optimizer, scheduler, labelled, unlabelled, writer, meters)
    return student, teacher, meters, writer


if __name__ == "__main__":
    run(10)
