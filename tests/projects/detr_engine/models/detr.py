# Layout modelled on facebookresearch/detr (models/detr.py): the model returns a dict of outputs,
# SetCriterion (an nn.Module) returns a dict of named losses, the class error computed with the
# no-grad accuracy helper. Reduced: a linear "transformer" and matching by position.
import torch
import torch.nn as nn
import torch.nn.functional as F

from util.misc import accuracy


class DETR(nn.Module):
    def __init__(self, num_classes, num_queries=5, hidden_dim=32, in_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.ReLU())
        self.query_embed = nn.Embedding(num_queries, hidden_dim)
        self.class_embed = nn.Linear(hidden_dim, num_classes + 1)
        self.bbox_embed = nn.Linear(hidden_dim, 4)

    def forward(self, samples):
        memory = self.backbone(samples)
        hs = memory.unsqueeze(1) + self.query_embed.weight.unsqueeze(0)
        return {"pred_logits": self.class_embed(hs), "pred_boxes": self.bbox_embed(hs).sigmoid()}


class SetCriterion(nn.Module):
    def __init__(self, num_classes, weight_dict):
        super().__init__()
        self.num_classes = num_classes
        self.weight_dict = weight_dict

    def forward(self, outputs, targets):
        logits = outputs["pred_logits"]
        labels = torch.stack([t["labels"] for t in targets])
        boxes = torch.stack([t["boxes"] for t in targets])
        loss_ce = F.cross_entropy(logits.transpose(1, 2), labels)
        loss_bbox = F.l1_loss(outputs["pred_boxes"], boxes)
        loss_giou = (1 - F.cosine_similarity(outputs["pred_boxes"], boxes, dim=-1)).mean()
        class_error = 100 - accuracy(logits.flatten(0, 1), labels.flatten())[0]
        return {"loss_ce": loss_ce, "loss_bbox": loss_bbox, "loss_giou": loss_giou, "class_error": class_error}


def build(num_classes=3):
    weight_dict = {"loss_ce": 1.0, "loss_bbox": 5.0, "loss_giou": 2.0}
    return DETR(num_classes), SetCriterion(num_classes, weight_dict)
