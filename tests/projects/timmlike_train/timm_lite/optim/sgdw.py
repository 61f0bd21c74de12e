""" SGD with decoupled weight decay (SGDW), simplified """
import torch
from torch.optim.optimizer import Optimizer


class SGDW(Optimizer):
    def __init__(self, params, lr=1e-2, momentum=0.9, dampening=0., weight_decay=0., nesterov=False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov)
        super().__init__(params, defaults)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()

        for group in self.param_groups:
            lr = group['lr']
            momentum = group['momentum']
            dampening = group['dampening']
            for p in group['params']:
                if p.grad is None:
                    continue
                d_p = p.grad
                state = self.state[p]
                if 'momentum_buffer' not in state:
                    state['momentum_buffer'] = torch.zeros_like(p, memory_format=torch.preserve_format)
                buf = state['momentum_buffer']
                buf.mul_(momentum).add_(d_p, alpha=1 - dampening)
                if group['nesterov']:
                    d_p = d_p.add(buf, alpha=momentum)
                else:
                    d_p = buf
                # decoupled weight decay, then the update itself
                p.data.mul_(1. - lr * group['weight_decay'])
                p.data.add_(d_p, alpha=-lr)

        return loss
