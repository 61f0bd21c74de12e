# A two-level stand-in for yolox/models/yolo_pafpn.py (CSPDarknet stem + PAN, strides 8/16).
import torch
import torch.nn as nn

from .network_blocks import BaseConv, CSPLayer


class YOLOPAFPN(nn.Module):
    def __init__(self, depth=1.0, width=1.0, in_channels=(16, 32), act="silu"):
        super().__init__()
        c0, c1 = in_channels
        self.stem = nn.Sequential(
            BaseConv(3, c0 // 2, 3, 2, act=act),
            BaseConv(c0 // 2, c0, 3, 2, act=act),
            BaseConv(c0, c0, 3, 2, act=act),
        )                                    # stride 8
        self.dark4 = nn.Sequential(BaseConv(c0, c1, 3, 2, act=act),
                                   CSPLayer(c1, c1, n=round(depth), act=act))  # stride 16
        self.upsample = nn.Upsample(scale_factor=2, mode="nearest")
        self.reduce_conv = BaseConv(c1, c0, 1, 1, act=act)
        self.C3_p3 = CSPLayer(2 * c0, c0, n=round(depth), shortcut=False, act=act)
        self.bu_conv = BaseConv(c0, c0, 3, 2, act=act)
        self.C3_n4 = CSPLayer(2 * c0, c1, n=round(depth), shortcut=False, act=act)
        self.in_channels = in_channels

    def forward(self, input):
        x2 = self.stem(input)
        x1 = self.dark4(x2)
        fpn_out = self.reduce_conv(x1)
        f_out = torch.cat([self.upsample(fpn_out), x2], 1)
        pan_out1 = self.C3_p3(f_out)                                   # stride 8
        pan_out0 = self.C3_n4(torch.cat([self.bu_conv(pan_out1), fpn_out], 1))  # stride 16
        return (pan_out1, pan_out0)
