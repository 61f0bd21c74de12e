from .cifar import CIFAR10Instance

__all__ = ('CIFAR10Instance',)
