"""A very small stand-in for pycocotools' COCOeval: AP at a single IoU
threshold with all detections ranked by score."""
import torch


def box_iou(boxes1, boxes2):
    area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
    area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
    lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
    rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    return inter / (area1[:, None] + area2 - inter)


class DetectionEvaluator:
    def __init__(self, dataset, iou_thresh=0.5):
        self.dataset = dataset
        self.iou_thresh = iou_thresh
        self.predictions = {}
        self.stats = {}

    def update(self, predictions):
        self.predictions.update(predictions)

    def accumulate(self):
        records, num_gt = [], 0
        for image_id, pred in self.predictions.items():
            _, target = self.dataset[image_id]
            gt_boxes, gt_labels = target["boxes"], target["labels"]
            num_gt += len(gt_boxes)
            matched = torch.zeros(len(gt_boxes), dtype=torch.bool)
            order = pred["scores"].argsort(descending=True)
            for i in order.tolist():
                ious = box_iou(pred["boxes"][i : i + 1], gt_boxes)[0]
                ious[gt_labels != pred["labels"][i]] = 0
                best = ious.argmax() if len(ious) else None
                tp = best is not None and ious[best] >= self.iou_thresh and not matched[best]
                if tp:
                    matched[best] = True
                records.append((pred["scores"][i].item(), tp))
        records.sort(key=lambda r: -r[0])
        tp_cum, ap, prev_recall = 0, 0.0, 0.0
        for rank, (_, tp) in enumerate(records, start=1):
            if tp:
                tp_cum += 1
                recall = tp_cum / max(num_gt, 1)
                ap += (recall - prev_recall) * (tp_cum / rank)
                prev_recall = recall
        self.stats = {"AP50": ap, "num_dets": len(records)}

    def summarize(self):
        print("  AP@0.5 = {:.4f}  ({} detections)".format(self.stats["AP50"], self.stats["num_dets"]))
