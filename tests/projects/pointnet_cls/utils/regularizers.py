# Input-gradient regularisation for point clouds (gradient-norm penalty on the input
# coordinates, as robustness papers on PointNet use): torch.autograd.grad with
# create_graph=True so that the penalty can be backpropagated.
import torch


def input_grad_penalty(loss, points):
    grads, = torch.autograd.grad(loss, points, create_graph=True)
    gnorm = grads.flatten(1).norm(dim=1).mean()
    penalty = gnorm ** 2
    return penalty, gnorm
