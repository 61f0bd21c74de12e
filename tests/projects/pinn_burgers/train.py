# Modelled on: https://github.com/tianshao1992/PINNs4pytorch
"""
Burgers-1d-t: u_t + u u_x = nu/pi u_xx, trained with a PINN on a space-time
grid; boundary/initial rows of the grid are supervised with the closed-form
solution, the interior only through the PDE residual.
"""
import time

import numpy as np
import torch
import torch.nn as nn

from basic_model import DeepModel_single, adaptive_weights, gradients
from process_data import burgers_grid
from visual_data import matplotlib_vision

pi = np.pi
nu = 0.01


class Net(DeepModel_single):
    def __init__(self, planes):
        super(Net, self).__init__(planes, active=nn.Tanh())
        self.nu = 0.01

    def equation(self, inn_var, out_var):
        u = out_var[..., (0,)]
        duda = gradients(out_var, inn_var)
        dudt, dudx = duda[..., (0,)], duda[..., (1,)]
        d2udx2 = gradients(dudx, inn_var)[..., (1,)]
        res = dudt + u * dudx - self.nu / pi * d2udx2
        return res


def train(inn_var, out_true, model, Loss, optimizer, scheduler, log_loss, weights, Visual, record):

    def closure():
        optimizer.zero_grad()
        out_var = model(inn_var)
        res_i = model.equation(inn_var, out_var)
        ics_loss = Loss(out_var[0, :], out_true[0, :])
        bcs_loss_1 = Loss(out_var[:, 0], out_true[:, 0])
        bcs_loss_2 = Loss(out_var[:, -1], out_true[:, -1])
        eqs_loss = Loss(res_i, torch.zeros_like(res_i, dtype=torch.float32))
        bcs_loss = bcs_loss_1 + bcs_loss_2

        if weights['update']:
            # lambda_hat from the current gradients, smoothed over iterations;
            # the graph must survive for the backward of loss_batch below
            lam_hat = adaptive_weights([eqs_loss, bcs_loss, ics_loss], model)
            weights['lambda'] = 0.9 * weights['lambda'] + 0.1 * lam_hat

        if record:
            for tag, term in (('eqs', eqs_loss), ('bcs', bcs_loss)):
                Visual.record_gradients(tag, [gradients(term, p) for n, p in model.named_parameters()
                                              if 'weight' in n])

        loss_batch = eqs_loss + weights['lambda'] * (bcs_loss + ics_loss)
        loss_batch.backward(create_graph=True)  # expect: TLK302

        data_loss = Loss(out_var, out_true)
        log_loss.append([eqs_loss.item(), bcs_loss.item(), ics_loss.item(), data_loss.item()])
        return loss_batch

    optimizer.step(closure)
    scheduler.step()


def inference(inn_var, model):
    out_pred = model(inn_var)
    equation = model.equation(inn_var, out_pred)
    return out_pred, equation


def main(steps=200):
    torch.manual_seed(0)
    np.random.seed(0)
    device = torch.device('cpu')

    inputs, field = burgers_grid(nt=12, nx=24, nu=nu)
    nodes_train = torch.tensor(inputs, dtype=torch.float32).to(device)
    field_train = torch.tensor(field, dtype=torch.float32).to(device)

    Net_model = Net(planes=[2, 20, 20, 20, 1]).to(device)
    L2loss = nn.MSELoss()
    Optimizer = torch.optim.Adam(Net_model.parameters(), lr=0.001, betas=(0.7, 0.9))
    Scheduler = torch.optim.lr_scheduler.MultiStepLR(Optimizer, milestones=[20000, 25000], gamma=0.1)
    Visual = matplotlib_vision('/', input_name=('t', 'x'), field_name=('u',))

    star_time = time.time()
    log_loss = []
    weights = {'lambda': torch.tensor(1.0), 'update': False}
    update_every, record_every, snap_every = 10, 5, 5

    inn_var = nodes_train
    inn_var.requires_grad_(True)

    for iter in range(steps):
        weights['update'] = iter % update_every == 0
        train(inn_var, field_train, Net_model, L2loss, Optimizer, Scheduler, log_loss, weights,
              Visual, record=iter % record_every == 0)

        if iter % snap_every == 0:
            field_pred, _ = inference(inn_var, Net_model)
            Visual.add_snapshot(iter, field_pred)

        if iter % 10 == 0:
            print('iter: {:6d}, lambda: {:.3f}, eqs_loss: {:.3e}, dat_loss: {:.3e}, bcs_loss: {:.3e}, cost: {:.2f}'.
                  format(iter, float(weights['lambda']), log_loss[-1][0], log_loss[-1][-1], log_loss[-1][1],
                         time.time() - star_time))

    Visual.plot_loss(np.arange(len(log_loss)), np.array(log_loss)[:, 0], 'eqs_loss')
    Visual.plot_loss(np.arange(len(log_loss)), np.array(log_loss)[:, 1], 'bcs_loss')
    Visual.plot_loss(np.arange(len(log_loss)), np.array(log_loss)[:, -1], 'dat_loss')
    return Net_model, Visual, log_loss


if __name__ == '__main__':
    main()
