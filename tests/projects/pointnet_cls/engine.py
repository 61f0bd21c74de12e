# Trainer for the point-cloud classifier: the body of train_classification.py's epoch loop
# (yanx27/Pointnet_Pointnet2_pytorch) moved into a class whose collaborators are built in
# train_classification.py and handed to the constructor, and test() as Trainer.evaluate.
import torch

import provider
from utils.regularizers import input_grad_penalty


class Trainer(object):
    def __init__(self, model, criterion, optimizer, hard_buffer, feature_bank, loss_meter, args):
        self.model = model
        self.criterion = criterion
        self.optimizer = optimizer
        self.hard_buffer = hard_buffer
        self.feature_bank = feature_bank
        self.loss_meter = loss_meter
        self.args = args
        self.reg_total = 0.0
        self.grad_norms = []
        self.eval_preds = []

    def train_epoch(self, loader):
        self.model.train()
        self.loss_meter.reset()
        self.reg_total = 0.0
        for batch_id, (points, target) in enumerate(loader):
            self.optimizer.zero_grad()
            points = provider.random_point_dropout(points.clone())
            points = provider.random_scale_point_cloud(points)
            points = provider.shift_point_cloud(points)
            points = points.transpose(2, 1).requires_grad_(True)
            pred, trans_feat, feat = self.model(points)
            loss, mat_diff_loss = self.criterion(pred, target, trans_feat)
            penalty, gnorm = input_grad_penalty(loss, points)
            (loss + self.args.grad_penalty * penalty).backward()  # clean: the create_graph penalty feeds this backward
            self.optimizer.step()
            self.loss_meter.update(loss.item(), points.size(0))  # clean: .item() before the meter
            self.reg_total = self.reg_total + mat_diff_loss  # expect: TLK101
            self.grad_norms.append(gnorm)  # expect: TLK301
            self.hard_buffer.add(points, pred, target)  # expect: TLK102
            self.feature_bank.update(feat, target)  # clean: FeatureBank.update (utils/buffer.py) writes under no_grad
        return self.loss_meter.avg, float(self.reg_total) / max(batch_id + 1, 1)

    @torch.no_grad()
    def evaluate(self, loader):
        self.model.eval()
        correct, total = 0, 0
        for points, target in loader:
            pred, _, _ = self.model(points.transpose(2, 1))
            self.eval_preds.append(pred)  # clean: evaluate runs under @torch.no_grad()
            correct += pred.max(1)[1].eq(target).sum().item()
            total += points.size(0)
        return correct / total
