# Layout modelled on lucidrains/byol-pytorch (examples/lightning/train.py and the README): a script
# builds a small convnet and hands it to the package's trainer.
import torch.nn as nn

from byol_pytorch import BYOLTrainer


def main(loader, epochs=1):
    net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(32, 10))
    trainer = BYOLTrainer(net)
    trainer.warmup(loader)
    for _ in range(epochs):
        trainer.train(loader)
    return trainer
