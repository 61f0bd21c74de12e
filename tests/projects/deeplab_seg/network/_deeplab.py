import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, k=3, stride=1, dilation=1):
        pad = dilation * (k // 2)
        super().__init__(
            nn.Conv2d(cin, cout, k, stride=stride, padding=pad, dilation=dilation, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class TinyBackbone(nn.Module):
    """Two-stage encoder returning the low-level (stride 2) and the output (stride 4) features."""

    def __init__(self, width):
        super().__init__()
        self.stem = ConvBNReLU(3, width, stride=2)
        self.layer = nn.Sequential(ConvBNReLU(width, 2 * width, stride=2), ConvBNReLU(2 * width, 2 * width, dilation=2))

    def forward(self, x):
        low = self.stem(x)
        return {"low_level": low, "out": self.layer(low)}


class ASPP(nn.Module):
    def __init__(self, cin, cout, rates=(1, 2, 3)):
        super().__init__()
        self.branches = nn.ModuleList([ConvBNReLU(cin, cout, k=1)] + [ConvBNReLU(cin, cout, dilation=r) for r in rates])
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, cout, 1), nn.ReLU(inplace=True))
        self.project = ConvBNReLU((len(rates) + 2) * cout, cout, k=1)

    def forward(self, x):
        outs = [b(x) for b in self.branches]
        outs.append(F.interpolate(self.pool(x), size=x.shape[2:], mode="bilinear", align_corners=False))
        return self.project(torch.cat(outs, dim=1))


class DeepLabHeadV3Plus(nn.Module):
    def __init__(self, in_ch, low_ch, num_classes, aspp_ch=16):
        super().__init__()
        self.reduce = ConvBNReLU(low_ch, 8, k=1)
        self.aspp = ASPP(in_ch, aspp_ch)
        self.classifier = nn.Sequential(ConvBNReLU(8 + aspp_ch, aspp_ch), nn.Conv2d(aspp_ch, num_classes, 1))

    def forward(self, feature):
        low = self.reduce(feature["low_level"])
        out = self.aspp(feature["out"])
        out = F.interpolate(out, size=low.shape[2:], mode="bilinear", align_corners=False)
        return self.classifier(torch.cat([low, out], dim=1))


class DeepLabV3Plus(nn.Module):
    def __init__(self, num_classes, width=16, aux_loss=True):
        super().__init__()
        self.num_classes = num_classes
        self.backbone = TinyBackbone(width)
        self.head = DeepLabHeadV3Plus(2 * width, width, num_classes)
        self.aux_head = nn.Conv2d(2 * width, num_classes, 1) if aux_loss else None
        # auxiliary (deep-supervision) logits of the training forwards, read by the engine
        self.aux_logits = []
        self.register_buffer("pred_pixels", torch.zeros(num_classes))

    def forward(self, x):
        size = x.shape[-2:]
        feats = self.backbone(x)
        out = F.interpolate(self.head(feats), size=size, mode="bilinear", align_corners=False)
        if self.training and self.aux_head is not None:
            aux = F.interpolate(self.aux_head(feats["out"]), size=size, mode="bilinear", align_corners=False)
            self.aux_logits.append(aux)  # expect: TLK102
        with torch.no_grad():
            self.pred_pixels += torch.bincount(out.argmax(1).flatten(), minlength=self.num_classes).float()
        return out
