# Source: https://github.com/TRI-ML/packnet-sfm/pull/51
# Shape: a self-supervised depth trainer stores each batch's predicted depth and loss in a dict keyed by the global step for later visualisation; every entry keeps its step's graph.
# Verdict: leak
import torch
import torch.nn as nn


class DepthTrainer:
    def __init__(self, depth_net: nn.Module, pose_net: nn.Module, photometric_loss, lr=2e-4):
        self.depth_net = depth_net
        self.pose_net = pose_net
        self.photometric_loss = photometric_loss
        params = list(depth_net.parameters()) + list(pose_net.parameters())
        self.optimizer = torch.optim.Adam(params, lr=lr)
        self.snapshots = {}

    def train_epoch(self, loader, epoch):
        for i, batch in enumerate(loader):
            target, context = batch["rgb"].cuda(), batch["rgb_context"].cuda()
            inv_depth = self.depth_net(target)
            pose = self.pose_net(target, context)
            loss = self.photometric_loss(target, context, inv_depth, pose)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            step = epoch * len(loader) + i
            if i % 50 == 0:
                self.snapshots[step] = (inv_depth, loss)  # TLK102
