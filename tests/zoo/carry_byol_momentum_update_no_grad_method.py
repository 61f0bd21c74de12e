# Source: https://github.com/open-mmlab/mmselfsup/pull/57
# Shape: BYOL keeps a target network that follows the online network by a momentum average; the update method is decorated with torch.no_grad() and blends parameter .data, the target projections are computed under no_grad, and the training loop calls the update after every optimizer step, so the carried target weights never record a graph.
# Verdict: clean
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class BYOL(nn.Module):
    def __init__(self, backbone, neck, predictor, base_momentum=0.996):
        super().__init__()
        self.online_net = nn.Sequential(backbone, neck)
        self.target_net = copy.deepcopy(self.online_net)
        for param in self.target_net.parameters():
            param.requires_grad = False
        self.predictor = predictor
        self.momentum = base_momentum

    @torch.no_grad()
    def momentum_update(self):
        for param_ol, param_tgt in zip(self.online_net.parameters(), self.target_net.parameters()):
            param_tgt.data = param_tgt.data * self.momentum + param_ol.data * (1.0 - self.momentum)

    @staticmethod
    def regression_loss(pred, target):
        return 2 - 2 * F.cosine_similarity(pred, target, dim=-1).mean()

    def forward_train(self, view_1, view_2):
        pred_1 = self.predictor(self.online_net(view_1))
        pred_2 = self.predictor(self.online_net(view_2))
        with torch.no_grad():
            proj_target_1 = self.target_net(view_1)
            proj_target_2 = self.target_net(view_2)
        return self.regression_loss(pred_1, proj_target_2) + self.regression_loss(pred_2, proj_target_1)


def train(model, loader, optimizer, epochs=200):
    for epoch in range(epochs):
        total = 0.0
        for view_1, view_2 in loader:
            loss = model.forward_train(view_1, view_2)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model.momentum_update()
            total += loss.item()
        print(f"epoch {epoch}: {total / len(loader):.4f}")
