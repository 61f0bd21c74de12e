import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))
        self.relu = nn.ReLU(inplace=True)

    def forward(self, x):
        out = self.relu(self.bn1(self.conv1(x)))
        return self.relu(self.bn2(self.conv2(out)) + self.shortcut(x))


class ResNetSimCLR(nn.Module):
    def __init__(self, base_model="resnet_tiny", out_dim=16, width=8):
        super().__init__()
        if base_model != "resnet_tiny":
            raise ValueError("Invalid backbone architecture: %s" % base_model)
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 3, 1, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            BasicBlock(width, 2 * width, 2), BasicBlock(2 * width, 4 * width, 2),
            nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )
        dim_mlp = 4 * width
        # add mlp projection head
        self.projector = nn.Sequential(nn.Linear(dim_mlp, dim_mlp), nn.ReLU(), nn.Linear(dim_mlp, out_dim))

    def forward(self, x, return_h=False):
        h = self.backbone(x)
        z = self.projector(h)
        return (z, h) if return_h else z
