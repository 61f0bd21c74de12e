import torch
import torch.nn as nn
import torch.nn.functional as F


class conv2DBatchNormRelu(nn.Module):
    def __init__(self, in_channels, n_filters, k_size=3, stride=1, padding=1):
        super(conv2DBatchNormRelu, self).__init__()
        self.cbr_unit = nn.Sequential(
            nn.Conv2d(in_channels, n_filters, k_size, stride=stride, padding=padding, bias=False),
            nn.BatchNorm2d(n_filters),
            nn.ReLU(inplace=True),
        )

    def forward(self, inputs):
        return self.cbr_unit(inputs)


class unetConv2(nn.Module):
    def __init__(self, in_size, out_size):
        super(unetConv2, self).__init__()
        self.conv1 = conv2DBatchNormRelu(in_size, out_size)
        self.conv2 = conv2DBatchNormRelu(out_size, out_size)

    def forward(self, inputs):
        return self.conv2(self.conv1(inputs))


class unetUp(nn.Module):
    def __init__(self, in_size, out_size):
        super(unetUp, self).__init__()
        self.up = nn.ConvTranspose2d(in_size, out_size, kernel_size=2, stride=2)
        self.conv = unetConv2(out_size * 2, out_size)

    def forward(self, inputs1, inputs2):
        outputs2 = self.up(inputs2)
        return self.conv(torch.cat([inputs1, outputs2], 1))


class unet(nn.Module):
    """Two-level UNet with an auxiliary (deep supervision) head on the bottleneck."""

    def __init__(self, n_classes=4, in_channels=3, feature_scale=4, aux_head=True):
        super(unet, self).__init__()
        filters = [int(x / feature_scale) for x in [64, 128, 256]]
        self.conv1 = unetConv2(in_channels, filters[0])
        self.conv2 = unetConv2(filters[0], filters[1])
        self.center = unetConv2(filters[1], filters[2])
        self.up2 = unetUp(filters[2], filters[1])
        self.up1 = unetUp(filters[1], filters[0])
        self.final = nn.Conv2d(filters[0], n_classes, 1)
        self.aux = nn.Conv2d(filters[2], n_classes, 1) if aux_head else None

    def forward(self, inputs):
        conv1 = self.conv1(inputs)
        conv2 = self.conv2(F.max_pool2d(conv1, 2))
        center = self.center(F.max_pool2d(conv2, 2))
        up2 = self.up2(conv2, center)
        up1 = self.up1(conv1, up2)
        out = self.final(up1)
        if self.training and self.aux is not None:
            aux = F.interpolate(self.aux(center), size=out.shape[2:], mode="bilinear", align_corners=False)
            return out, aux
        return out
