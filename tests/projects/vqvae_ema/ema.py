"""An exponential moving average of the model's parameters, swapped in for sampling."""
import torch


class ModelEMA:
    def __init__(self, model, decay=0.999):
        self.decay = decay
        self.shadow = {name: p.detach().clone() for name, p in model.named_parameters()}

    def update(self, model):
        for name, p in model.named_parameters():
            self.shadow[name] = self.decay * self.shadow[name] + (1.0 - self.decay) * p  # expect: TLK103 (EMA of the parameters without no_grad, (1 - decay) * p with p requiring grad, stored in self.shadow each step; called once, from train_vqvae.py:41)

    @torch.no_grad()
    def averaged_copy(self, model, factory):
        averaged = factory()
        averaged.load_state_dict(model.state_dict())
        for name, p in averaged.named_parameters():
            p.copy_(self.shadow[name])
        return averaged
