# Modelled on models/utils/continual_model.py of aimagelab/mammoth: the base class of every
# continual learning method owns the backbone, the loss and the optimiser; the training loop
# calls meta_observe(), which counts the iteration and calls the method's observe().
import torch.nn as nn
import torch.optim as optim


class ContinualModel(nn.Module):
    NAME = "base"

    def __init__(self, backbone, loss, args):
        super().__init__()
        self.net = backbone
        self.loss = loss
        self.args = args
        self.opt = optim.SGD(self.net.parameters(), lr=args.lr)
        self.task_iteration = 0

    def forward(self, x):
        return self.net(x)

    def meta_observe(self, inputs, labels, not_aug_inputs):
        self.task_iteration += 1
        return self.observe(inputs, labels, not_aug_inputs)

    def observe(self, inputs, labels, not_aug_inputs):
        raise NotImplementedError

    def begin_task(self):
        self.task_iteration = 0
