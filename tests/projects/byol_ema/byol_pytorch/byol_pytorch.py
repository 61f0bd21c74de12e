# Layout modelled on lucidrains/byol-pytorch (byol_pytorch/byol_pytorch.py): an EMA helper class, a
# module-level update_moving_average, a NetWrapper that takes the representation from a forward
# hook, and the BYOL module whose target encoder is a frozen copy of the online one. Changed here:
# the moving average is written with copy_ instead of through .data, and forward keeps a running
# std of the projections on self to watch for collapse.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class EMA:
    def __init__(self, beta):
        self.beta = beta

    def update_average(self, old, new):
        if old is None:
            return new
        return old * self.beta + (1 - self.beta) * new


def update_moving_average(ema_updater, ma_model, current_model):
    for current_params, ma_params in zip(current_model.parameters(), ma_model.parameters()):
        ma_params.copy_(ema_updater.update_average(ma_params, current_params))


def set_requires_grad(model, val):
    for p in model.parameters():
        p.requires_grad = val


def loss_fn(x, y):
    x = F.normalize(x, dim=-1, p=2)
    y = F.normalize(y, dim=-1, p=2)
    return 2 - 2 * (x * y).sum(dim=-1)


class NetWrapper(nn.Module):
    def __init__(self, net, projection_size, hidden_size=32):
        super().__init__()
        self.net = net
        self.hidden = {}
        self.projector = nn.Sequential(nn.LazyLinear(hidden_size), nn.ReLU(), nn.Linear(hidden_size, projection_size))
        net[-2].register_forward_hook(self._hook)

    def _hook(self, _, input, output):
        self.hidden[output.device] = output.flatten(1)  # clean: one entry per device, taken out by forward

    def forward(self, x):
        self.hidden.clear()
        self.net(x)
        representation = self.hidden.pop(x.device)
        return self.projector(representation), representation


class BYOL(nn.Module):
    def __init__(self, net, projection_size=16, moving_average_decay=0.99, std_momentum=0.9):
        super().__init__()
        self.online_encoder = NetWrapper(net, projection_size)
        self.online_predictor = nn.Sequential(nn.Linear(projection_size, 32), nn.ReLU(), nn.Linear(32, projection_size))
        self.target_encoder = None
        self.target_ema_updater = EMA(moving_average_decay)
        self.std_momentum = std_momentum
        self.online_std = torch.zeros(())
        self.target_std = torch.zeros(())

    def _get_target_encoder(self):
        if self.target_encoder is None:
            self.target_encoder = copy.deepcopy(self.online_encoder)
            set_requires_grad(self.target_encoder, False)
        return self.target_encoder

    def update_moving_average(self):
        update_moving_average(self.target_ema_updater, self._get_target_encoder(), self.online_encoder)

    def forward(self, x):
        image_one, image_two = x + 0.1 * torch.randn_like(x), x.flip(-1)
        online_proj_one, _ = self.online_encoder(image_one)
        online_proj_two, _ = self.online_encoder(image_two)
        online_pred_one = self.online_predictor(online_proj_one)
        online_pred_two = self.online_predictor(online_proj_two)
        # Measured under torch 2.13 CPU (train.main over loaders of 1, 10, 20 batches of 8 images
        # 3x8x8, after 2 warmup steps): the autograd nodes reachable from byol.online_std grow
        # 33 -> 173 -> 313, holding 1,176 -> 7,096 -> 13,016 B of saved tensors (+658 B per
        # forward); target_std: none.
        self.online_std = self.std_momentum * self.online_std + (1 - self.std_momentum) * online_proj_one.std(0).mean()  # expect: TLK103
        with torch.no_grad():
            target_encoder = self._get_target_encoder()
            target_proj_one, _ = target_encoder(image_one)
            target_proj_two, _ = target_encoder(image_two)
            self.target_std = self.std_momentum * self.target_std + (1 - self.std_momentum) * target_proj_one.std(0).mean()  # clean: under no_grad
        loss = loss_fn(online_pred_one, target_proj_two.detach()) + loss_fn(online_pred_two, target_proj_one.detach())
        return loss.mean()
