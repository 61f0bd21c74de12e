from .adversarial import DomainAdversarialLoss, GradientReverseLayer
from .meter import AverageMeter, accuracy
from .penalty import DiscriminatorGradPenalty
