from .resnet_simclr import ResNetSimCLR
