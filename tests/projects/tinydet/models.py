import torch
from torch import nn

from losses import FCOSLoss

_MODEL_REGISTRY = {}


def register_model(fn):
    _MODEL_REGISTRY[fn.__name__] = fn
    return fn


def get_model(name, **kwargs):
    if name not in _MODEL_REGISTRY:
        raise KeyError(f"Unknown model {name}, available: {sorted(_MODEL_REGISTRY)}")
    return _MODEL_REGISTRY[name](**kwargs)


def conv_gn_relu(in_ch, out_ch, stride=1):
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, 3, stride=stride, padding=1, bias=False),
        nn.GroupNorm(8, out_ch),
        nn.ReLU(inplace=True),
    )


class TinyBackbone(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.stem = conv_gn_relu(3, width)
        self.layer1 = conv_gn_relu(width, width * 2, stride=2)
        self.layer2 = conv_gn_relu(width * 2, width * 4, stride=2)
        self.out_channels = width * 4
        self.stride = 4

    def forward(self, x):
        return self.layer2(self.layer1(self.stem(x)))


class FCOSHead(nn.Module):
    def __init__(self, in_channels, num_classes, num_convs=2, prior_probability=0.01):
        super().__init__()
        cls_tower, bbox_tower = [], []
        for _ in range(num_convs):
            cls_tower.append(conv_gn_relu(in_channels, in_channels))
            bbox_tower.append(conv_gn_relu(in_channels, in_channels))
        self.cls_tower = nn.Sequential(*cls_tower)
        self.bbox_tower = nn.Sequential(*bbox_tower)
        self.cls_logits = nn.Conv2d(in_channels, num_classes - 1, 3, padding=1)
        self.bbox_pred = nn.Conv2d(in_channels, 4, 3, padding=1)
        nn.init.constant_(self.cls_logits.bias, -torch.log(torch.tensor((1 - prior_probability) / prior_probability)).item())
        nn.init.normal_(self.cls_logits.weight, std=0.01)
        nn.init.normal_(self.bbox_pred.weight, std=0.01)
        nn.init.constant_(self.bbox_pred.bias, 1.0)

    def forward(self, x):
        n = x.shape[0]
        cls_logits = self.cls_logits(self.cls_tower(x))
        bbox_reg = nn.functional.relu(self.bbox_pred(self.bbox_tower(x)))
        cls_logits = cls_logits.flatten(2).permute(0, 2, 1).reshape(n, -1, cls_logits.shape[1])
        bbox_reg = bbox_reg.flatten(2).permute(0, 2, 1).reshape(n, -1, 4)
        return cls_logits, bbox_reg


class TinyFCOS(nn.Module):
    def __init__(self, num_classes, width=16, score_thresh=0.05, detections_per_img=5):
        super().__init__()
        self.backbone = TinyBackbone(width)
        self.head = FCOSHead(self.backbone.out_channels, num_classes)
        self.criterion = FCOSLoss(num_classes, stride=self.backbone.stride)
        self.score_thresh = score_thresh
        self.detections_per_img = detections_per_img
        self._points = {}

    def grid_points(self, feature):
        h, w = feature.shape[-2:]
        key = (h, w, feature.device)
        if key not in self._points:
            s = self.backbone.stride
            ys, xs = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            pts = torch.stack([xs.flatten(), ys.flatten()], dim=1).float() * s + s // 2
            self._points[key] = pts.to(feature.device)
        return self._points[key]

    def postprocess(self, cls_logits, bbox_reg, points):
        results = []
        scores_all = torch.sigmoid(cls_logits)
        for scores, reg in zip(scores_all, bbox_reg):
            scores_flat = scores.flatten()
            k = min(self.detections_per_img, scores_flat.numel())
            top_scores, top_idx = scores_flat.topk(k)
            loc = top_idx // scores.shape[1]
            labels = top_idx % scores.shape[1] + 1
            d = reg[loc] * self.backbone.stride
            boxes = torch.cat([points[loc] - d[:, :2], points[loc] + d[:, 2:]], dim=1)
            keep = top_scores > self.score_thresh
            results.append({"boxes": boxes[keep], "scores": top_scores[keep], "labels": labels[keep]})
        return results

    def forward(self, images, targets=None):
        images = torch.stack(images) if isinstance(images, (list, tuple)) else images
        features = self.backbone(images)
        cls_logits, bbox_reg = self.head(features)
        points = self.grid_points(features)
        if self.training:
            return self.criterion(cls_logits, bbox_reg, points, targets)
        return self.postprocess(cls_logits, bbox_reg, points)


@register_model
def fcos_tiny(num_classes, **kwargs):
    return TinyFCOS(num_classes, width=16, **kwargs)


@register_model
def fcos_small(num_classes, **kwargs):
    return TinyFCOS(num_classes, width=32, **kwargs)
