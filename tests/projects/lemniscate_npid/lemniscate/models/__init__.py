from .resnet_cifar import *
