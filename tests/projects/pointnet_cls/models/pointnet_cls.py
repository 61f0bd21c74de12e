# Modelled on models/pointnet_cls.py of yanx27/Pointnet_Pointnet2_pytorch: get_model (encoder,
# three fc layers, log_softmax) and get_loss (nll_loss + feature transform regulariser * 0.001).
# Here get_model also returns the global feature and get_loss also returns the regulariser.
import torch.nn as nn
import torch.nn.functional as F

from .pointnet_utils import PointNetEncoder, feature_transform_reguliarzer


class get_model(nn.Module):
    def __init__(self, k=10, normal_channel=False):
        super(get_model, self).__init__()
        channel = 6 if normal_channel else 3
        self.feat = PointNetEncoder(channel=channel)
        self.fc1 = nn.Linear(64, 32)
        self.fc2 = nn.Linear(32, k)

    def forward(self, x):
        x, trans_feat = self.feat(x)
        feat = x
        x = F.relu(self.fc1(x))
        x = F.log_softmax(self.fc2(x), dim=1)
        return x, trans_feat, feat


class get_loss(nn.Module):
    def __init__(self, mat_diff_loss_scale=0.001):
        super(get_loss, self).__init__()
        self.mat_diff_loss_scale = mat_diff_loss_scale

    def forward(self, pred, target, trans_feat):
        loss = F.nll_loss(pred, target)
        mat_diff_loss = feature_transform_reguliarzer(trans_feat)
        total_loss = loss + mat_diff_loss * self.mat_diff_loss_scale
        return total_loss, mat_diff_loss  # clean: returned to Trainer.train_epoch, which backwards total_loss
