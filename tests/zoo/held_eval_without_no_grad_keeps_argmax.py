# Source: https://github.com/hszhao/semseg/issues/60
# Shape: a segmentation validate() runs the model without torch.no_grad() (its peak memory is a training step's), but keeps only what no graph rides on: AverageMeters fed loss.item(), and intersection/union counts from the argmax prediction; each batch's graph is freed when output and loss are rebound, so nothing grows across batches.
# Verdict: clean
import torch
import torch.nn.functional as F


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def intersection_and_union(output, target, num_classes, ignore_index=255):
    output = output.view(-1)
    target = target.view(-1)
    output[target == ignore_index] = ignore_index
    intersection = output[output == target]
    area_intersection = torch.histc(intersection.float(), bins=num_classes, min=0, max=num_classes - 1)
    area_output = torch.histc(output.float(), bins=num_classes, min=0, max=num_classes - 1)
    area_target = torch.histc(target.float(), bins=num_classes, min=0, max=num_classes - 1)
    return area_intersection, area_output + area_target - area_intersection, area_target


def validate(val_loader, model, criterion, num_classes):
    loss_meter = AverageMeter()
    intersection_meter = AverageMeter()
    union_meter = AverageMeter()
    target_meter = AverageMeter()
    model.eval()
    for i, (input, target) in enumerate(val_loader):
        input = input.cuda(non_blocking=True)
        target = target.cuda(non_blocking=True)
        output = model(input)
        if output.shape[-2:] != target.shape[-2:]:
            output = F.interpolate(output, size=target.shape[-2:], mode="bilinear", align_corners=True)
        loss = criterion(output, target)
        output = output.max(1)[1]
        intersection, union, target_area = intersection_and_union(output, target, num_classes)
        intersection_meter.update(intersection.cpu().numpy())
        union_meter.update(union.cpu().numpy())
        target_meter.update(target_area.cpu().numpy())
        loss_meter.update(loss.item(), input.size(0))
    iou_class = intersection_meter.sum / (union_meter.sum + 1e-10)
    return loss_meter.avg, iou_class.mean()
