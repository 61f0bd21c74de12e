import os

import torch
import torch.nn as nn
from torch.autograd import grad

os.environ["KMP_DUPLICATE_LIB_OK"] = "TRUE"


def gradients(y, x):
    """
    First derivative of y with respect to x, dy/dx.
    :param y: torch tensor, network output, shape (...xN)
    :param x: torch tensor, network input (or a parameter), shape (...xM)
    :return dydx: torch tensor, shape (...MxN); the last dim is squeezed when N=1
    """
    if y.dim() == 0:
        return grad([y], [x], retain_graph=True, create_graph=True)[0]
    return torch.stack([grad([y[..., i].sum()], [x], retain_graph=True, create_graph=True)[0]
                        for i in range(y.size(-1))], dim=-1).squeeze(-1)


class DeepModel_single(nn.Module):
    def __init__(self, planes, active=nn.GELU()):
        """
        :param planes: list, [M,...,N]: input dim, hidden dims, output dim
        :param active: activation function
        """
        super(DeepModel_single, self).__init__()
        self.planes = planes
        self.active = active

        self.layers = nn.ModuleList()
        for i in range(len(self.planes) - 2):
            self.layers.append(nn.Linear(self.planes[i], self.planes[i + 1]))
            self.layers.append(self.active)
        self.layers.append(nn.Linear(self.planes[-2], self.planes[-1]))

        self.layers = nn.Sequential(*self.layers)
        self.apply(initialize_weights)

    def forward(self, in_var):
        out_var = self.layers(in_var)
        return out_var

    def loadmodel(self, File):
        try:
            checkpoint = torch.load(File)
            self.load_state_dict(checkpoint['model'])
            start_epoch = len(checkpoint['log_loss'])
            print("load start epoch at epoch " + str(start_epoch))
        except Exception:
            print("load model failed! start a new model.")

    def equation(self, **kwargs):
        return 0


def adaptive_weights(loss_list, model):
    """
    Learning-rate-annealing weights (Wang, Teng & Perdikaris 2021):
    max |grad of residual loss| / mean |grad of each other loss term|.
    """
    max_grad_list = []
    avg_grad_list = []
    for i in range(len(loss_list) - 1):
        avg_grad_list.append([])

    for name, param in model.named_parameters():
        if 'bias' not in name:
            max_grad_list.append(gradients(loss_list[0], param).abs().max().detach())
            for k, loss in enumerate(loss_list[1:]):
                avg_grad_list[k].append(gradients(loss, param).abs().mean().detach())

    avg_grad = torch.tensor(avg_grad_list).mean()
    max_grad = torch.tensor(max_grad_list).max()

    return max_grad / avg_grad


def initialize_weights(net):
    for m in net.modules():
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=1)
            m.bias.data.zero_()
