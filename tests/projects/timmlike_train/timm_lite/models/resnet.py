""" Tiny ResNet for 16x16 synthetic images (timm-style structure). """
import torch
import torch.nn as nn
import torch.nn.functional as F

from ._registry import register_model

__all__ = ['ResNet', 'BasicBlock']


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1):
        super().__init__()
        self.conv1 = nn.Conv2d(inplanes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(planes)
        self.act1 = nn.ReLU(inplace=False)
        self.conv2 = nn.Conv2d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm2d(planes)
        self.act2 = nn.ReLU(inplace=False)
        self.downsample = None
        if stride != 1 or inplanes != planes:
            self.downsample = nn.Sequential(
                nn.Conv2d(inplanes, planes, 1, stride=stride, bias=False),
                nn.BatchNorm2d(planes),
            )

    def forward(self, x):
        shortcut = x
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.bn2(self.conv2(x))
        if self.downsample is not None:
            shortcut = self.downsample(shortcut)
        x = x + shortcut
        return self.act2(x)


class ResNet(nn.Module):
    def __init__(self, layers=(1, 1), channels=(16, 32), in_chans=3, num_classes=10, drop_rate=0.):
        super().__init__()
        self.num_classes = num_classes
        self.drop_rate = drop_rate
        self.conv1 = nn.Conv2d(in_chans, channels[0], 3, padding=1, bias=False)
        self.bn1 = nn.BatchNorm2d(channels[0])
        self.act1 = nn.ReLU(inplace=False)
        stages = []
        inplanes = channels[0]
        for i, (n, c) in enumerate(zip(layers, channels)):
            blocks = []
            for j in range(n):
                stride = 2 if (i > 0 and j == 0) else 1
                blocks.append(BasicBlock(inplanes, c, stride=stride))
                inplanes = c
            stages.append(nn.Sequential(*blocks))
        self.layer1 = stages[0]
        self.layer2 = stages[1]
        self.num_features = inplanes
        self.fc = nn.Linear(self.num_features, num_classes)

    def forward_features(self, x):
        x = self.act1(self.bn1(self.conv1(x)))
        x = self.layer1(x)
        x = self.layer2(x)
        return x

    def forward_head(self, x, pre_logits: bool = False):
        x = x.mean((2, 3))
        if self.drop_rate:
            x = F.dropout(x, p=float(self.drop_rate), training=self.training)
        return x if pre_logits else self.fc(x)

    def forward(self, x):
        x = self.forward_features(x)
        x = self.forward_head(x)
        return x


@register_model
def resnet_tiny(pretrained=False, **kwargs):
    return ResNet(layers=(1, 1), channels=(16, 32), **kwargs)
