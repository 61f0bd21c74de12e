# Modelled on models/pointnet_utils.py of yanx27/Pointnet_Pointnet2_pytorch: STNkd (the feature
# transform net), PointNetEncoder and feature_transform_reguliarzer. Smaller widths.
import torch
import torch.nn as nn
import torch.nn.functional as F


class STNkd(nn.Module):
    def __init__(self, k=16):
        super(STNkd, self).__init__()
        self.conv1 = nn.Conv1d(k, 32, 1)
        self.fc = nn.Linear(32, k * k)
        self.k = k

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = torch.max(x, 2)[0]
        x = self.fc(x)
        iden = torch.eye(self.k).flatten().unsqueeze(0)
        return (x + iden).view(-1, self.k, self.k)


class PointNetEncoder(nn.Module):
    def __init__(self, channel=3, width=16):
        super(PointNetEncoder, self).__init__()
        self.conv1 = nn.Conv1d(channel, width, 1)
        self.conv2 = nn.Conv1d(width, 64, 1)
        self.fstn = STNkd(k=width)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        trans_feat = self.fstn(x)
        x = torch.bmm(x.transpose(2, 1), trans_feat).transpose(2, 1)
        x = self.conv2(x)
        x = torch.max(x, 2)[0]
        return x, trans_feat


def feature_transform_reguliarzer(trans):
    d = trans.size()[1]
    I = torch.eye(d)[None, :, :]
    loss = torch.mean(torch.norm(torch.bmm(trans, trans.transpose(2, 1)) - I, dim=(1, 2)))
    return loss
