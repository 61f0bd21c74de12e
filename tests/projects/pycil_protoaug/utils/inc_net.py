import copy
import torch
from torch import nn
from torch.nn import functional as F
from convs.linears import SimpleLinear


def get_backbone(args, pretrained=False):
    name = args["backbone_type"].lower()
    if name == "frozen_mlp":
        # stands in for a pre-trained ViT/ResNet: fixed random features
        g = torch.Generator().manual_seed(0)
        net = nn.Sequential(nn.Linear(args.get("input_dim", 32), 128), nn.ReLU(),
                            nn.Linear(128, 128), nn.ReLU())
        with torch.no_grad():
            for p in net.parameters():
                p.copy_(torch.randn(p.shape, generator=g) * 0.15)
        net.out_dim = 128
        return net
    else:
        raise NotImplementedError("Unknown type {}".format(name))


class BaseNet(nn.Module):
    def __init__(self, args, pretrained):
        super(BaseNet, self).__init__()
        self.backbone = get_backbone(args, pretrained)
        self.fc = None

    @property
    def feature_dim(self):
        return self.backbone.out_dim

    def extract_vector(self, x):
        return self.backbone(x)

    def forward(self, x):
        features = self.backbone(x)
        out = self.fc(features)
        out.update({"features": features})
        return out

    def update_fc(self, nb_classes):
        pass

    def generate_fc(self, in_dim, out_dim):
        pass

    def copy(self):
        return copy.deepcopy(self)

    def freeze(self):
        for param in self.parameters():
            param.requires_grad = False
        self.eval()
        return self


class AdapterNet(BaseNet):
    """Frozen backbone + trainable bottleneck adapter + growing linear head."""
    def __init__(self, args, pretrained):
        super().__init__(args, pretrained)
        for p in self.backbone.parameters():
            p.requires_grad = False
        self.adapter_dim = args.get("adapter_dim", 64)
        self.adapter = nn.Sequential(nn.Linear(self.backbone.out_dim, self.adapter_dim), nn.ReLU())

    @property
    def feature_dim(self):
        return self.adapter_dim

    def extract_vector(self, x):
        with torch.no_grad():
            h = self.backbone(x)
        return F.normalize(self.adapter(h), p=2, dim=1)

    def forward(self, x):
        features = self.extract_vector(x)
        out = self.fc(features)
        out.update({"features": features})
        return out

    def update_fc(self, nb_classes):
        fc = self.generate_fc(self.feature_dim, nb_classes)
        if self.fc is not None:
            nb_output = self.fc.out_features
            weight = copy.deepcopy(self.fc.weight.data)
            bias = copy.deepcopy(self.fc.bias.data)
            fc.weight.data[:nb_output] = weight
            fc.bias.data[:nb_output] = bias

        del self.fc
        self.fc = fc

    def generate_fc(self, in_dim, out_dim):
        fc = SimpleLinear(in_dim, out_dim)
        return fc
