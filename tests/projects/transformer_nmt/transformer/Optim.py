# Modelled on transformer/Optim.py of jadore801120/attention-is-all-you-need-pytorch:
# ScheduledOptim wraps Adam with the inverse-square-root warm-up schedule (step_and_update_lr,
# zero_grad); forks add a backward() that also clips the gradient norm.
import torch


class ScheduledOptim():
    '''A simple wrapper class for learning rate scheduling'''

    def __init__(self, optimizer, lr_mul, d_model, n_warmup_steps, max_norm=None):
        self._optimizer = optimizer
        self.lr_mul = lr_mul
        self.d_model = d_model
        self.n_warmup_steps = n_warmup_steps
        self.n_steps = 0
        self.max_norm = max_norm

    def step_and_update_lr(self):
        "Step with the inner optimizer"
        self._update_learning_rate()
        self._optimizer.step()

    def zero_grad(self):
        "Zero out the gradients with the inner optimizer"
        self._optimizer.zero_grad()

    def backward(self, loss, parameters):
        loss.backward(retain_graph=True)  # expect: TLK201 (ScheduledOptim.backward, called once per batch by train_epoch in train.py through the package's re-export; no later backward)
        if self.max_norm is not None:
            torch.nn.utils.clip_grad_norm_(parameters, self.max_norm)

    def _get_lr_scale(self):
        d_model = self.d_model
        n_steps, n_warmup_steps = self.n_steps, self.n_warmup_steps
        return (d_model ** -0.5) * min(n_steps ** (-0.5), n_steps * n_warmup_steps ** (-1.5))

    def _update_learning_rate(self):
        ''' Learning rate scheduling per step '''
        self.n_steps += 1
        lr = self.lr_mul * self._get_lr_scale()
        for param_group in self._optimizer.param_groups:
            param_group['lr'] = lr
