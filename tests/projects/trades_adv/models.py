# Modelled on models/small_cnn.py of yaodongyu/TRADES: a small convolutional classifier (two conv
# blocks, then a fully connected head), reduced for 1x8x8 inputs.
import torch.nn as nn


class SmallCNN(nn.Module):
    def __init__(self, num_channels=1, num_labels=10, width=8):
        super().__init__()
        self.feature_extractor = nn.Sequential(
            nn.Conv2d(num_channels, width, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1),
            nn.ReLU(),
            nn.MaxPool2d(2, 2),
        )
        self.classifier = nn.Sequential(nn.Linear(width * 4 * 4, 32), nn.ReLU(), nn.Linear(32, num_labels))

    def forward(self, input):
        features = self.feature_extractor(input)
        return self.classifier(features.flatten(1))
