# Source: https://github.com/yangcaoai/CoDA_NeurIPS2023/issues/20
# Shape: the 3D novel-object discovery step as fixed: the predicted box corners and objectness probabilities are taken from the outputs dict with .detach().clone() before they are reduced to the top-k most object-like boxes and stored per scan id in the trainer's discovery bank, so the bank holds plain copies and no step's detector graph outlives the step.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyDETR3D(nn.Module):
    def __init__(self, in_points=512, dim=128, num_queries=256):
        super().__init__()
        self.point_encoder = nn.Sequential(nn.Linear(3, dim), nn.ReLU(), nn.Linear(dim, dim), nn.ReLU())
        self.queries = nn.Parameter(torch.randn(num_queries, dim))
        self.attn = nn.MultiheadAttention(dim, 4, batch_first=True)
        self.box_head = nn.Linear(dim, 8 * 3)
        self.obj_head = nn.Linear(dim, 1)

    def forward(self, points):
        feats = self.point_encoder(points)
        q = self.queries.unsqueeze(0).expand(points.size(0), -1, -1)
        h, _ = self.attn(q, feats, feats)
        return {
            "box_corners_xyz": self.box_head(h).view(points.size(0), -1, 8, 3),
            "objectness_prob": torch.sigmoid(self.obj_head(h)).squeeze(-1),
        }


class Trainer:
    def __init__(self, model, lr=1e-4, top_k=4):
        self.model = model
        self.optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        self.top_k = top_k
        self.novel_bank = {}

    def targets_for(self, scan_ids, gt_corners):
        targets = []
        for sid, gt in zip(scan_ids, gt_corners):
            if sid in self.novel_bank:
                gt = torch.cat([gt, self.novel_bank[sid]["corners"].detach()], dim=0)
            targets.append(gt)
        return targets

    def criterion(self, outputs, targets):
        losses = []
        for pred, obj, tgt in zip(outputs["box_corners_xyz"], outputs["objectness_prob"], targets):
            k = min(tgt.size(0), pred.size(0))
            losses.append(F.l1_loss(pred[:k], tgt[:k]) + F.binary_cross_entropy(obj[:k], torch.ones(k)))
        return torch.stack(losses).mean()

    def discover(self, scan_ids, outputs):
        gt_center_ori = outputs["box_corners_xyz"].detach().clone()
        objectness_prob = outputs["objectness_prob"].detach().clone()
        for b, sid in enumerate(scan_ids):
            keep = objectness_prob[b].topk(self.top_k).indices
            self.novel_bank[sid] = {"corners": gt_center_ori[b][keep], "objectness": objectness_prob[b][keep]}

    def train_one_epoch(self, loader):
        for scan_ids, points, gt_corners in loader:
            outputs = self.model(points)
            loss = self.criterion(outputs, self.targets_for(scan_ids, gt_corners))
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.discover(scan_ids, outputs)


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = [([4 * i + j for j in range(4)], torch.randn(4, 512, 3), [torch.randn(3, 8, 3) for _ in range(4)]) for i in range(30)]
    trainer = Trainer(TinyDETR3D())
    trainer.train_one_epoch(loader)
    print(len(trainer.novel_bank), sum(v["corners"].size(0) for v in trainer.novel_bank.values()))
