# Modelled on models/ema.py of kekmodel/FixMatch-pytorch: ModelEMA keeps a deep copy of the
# model and folds the live weights into it after every optimizer step, under torch.no_grad().
from copy import deepcopy

import torch


class ModelEMA(object):
    def __init__(self, model, decay):
        self.ema = deepcopy(model)
        self.ema.eval()
        self.decay = decay
        self.param_keys = [k for k, _ in self.ema.named_parameters()]
        self.buffer_keys = [k for k, _ in self.ema.named_buffers()]
        for p in self.ema.parameters():
            p.requires_grad_(False)

    def update(self, model):
        with torch.no_grad():
            msd = model.state_dict()
            esd = self.ema.state_dict()
            for k in self.param_keys:
                model_v = msd[k]
                ema_v = esd[k]
                esd[k].copy_(ema_v * self.decay + (1. - self.decay) * model_v)
            for k in self.buffer_keys:
                esd[k].copy_(msd[k])
