"""Backbone + bottleneck + head classifier and the domain discriminator."""
import torch.nn as nn


class ImageClassifier(nn.Module):
    def __init__(self, in_dim=20, num_classes=4, bottleneck_dim=16):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU())
        self.bottleneck = nn.Sequential(nn.Linear(32, bottleneck_dim), nn.BatchNorm1d(bottleneck_dim), nn.ReLU())
        self.head = nn.Linear(bottleneck_dim, num_classes)
        self.features_dim = bottleneck_dim

    def forward(self, x):
        f = self.bottleneck(self.backbone(x))
        return self.head(f), f


class DomainDiscriminator(nn.Sequential):
    def __init__(self, in_feature, hidden_size=32):
        super().__init__(
            nn.Linear(in_feature, hidden_size), nn.ReLU(),
            nn.Linear(hidden_size, hidden_size), nn.ReLU(),
            nn.Linear(hidden_size, 1))
