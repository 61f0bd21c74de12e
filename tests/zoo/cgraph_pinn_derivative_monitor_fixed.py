# Source: https://github.com/nanditadoloi/PINN/blob/3d870ad97f03132f2e4e77dd200c6282a6a3968e/solve_PDE_NN.ipynb
# Shape: fixed twin: the monitor keeps a detached summary (mean |du/dx| as a float), so the create_graph result does not outlive its epoch.
# Verdict: clean
import torch
import torch.nn as nn

device = torch.device("cpu")


# We consider Net as our solution u_theta(x,t)
class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.hidden_layer1 = nn.Linear(2, 16)
        self.hidden_layer2 = nn.Linear(16, 16)
        self.hidden_layer3 = nn.Linear(16, 16)
        self.hidden_layer4 = nn.Linear(16, 16)
        self.hidden_layer5 = nn.Linear(16, 16)
        self.output_layer = nn.Linear(16, 1)

    def forward(self, x, t):
        inputs = torch.cat([x, t], axis=1)  # combined two arrays of 1 columns each to one array of 2 columns
        layer1_out = torch.sigmoid(self.hidden_layer1(inputs))
        layer2_out = torch.sigmoid(self.hidden_layer2(layer1_out))
        layer3_out = torch.sigmoid(self.hidden_layer3(layer2_out))
        layer4_out = torch.sigmoid(self.hidden_layer4(layer3_out))
        layer5_out = torch.sigmoid(self.hidden_layer5(layer4_out))
        output = self.output_layer(layer5_out)  # For regression, no activation is used in output layer
        return output


class DerivativeMonitor:
    """Keeps the mean |du/dx| on the collocation points every epoch, to plot how the learned derivative evolves."""

    def __init__(self):
        self.u_x = []
        self.points = []


## PDE as loss function. Thus would use the network which we call as u_theta
def f(x, t, net, monitor=None):
    u = net(x, t)  # the dependent variable u is given by the network based on independent variables x,t
    ## Based on our f = du/dx - 2du/dt - u, we need du/dx and du/dt
    u_x = torch.autograd.grad(u.sum(), x, create_graph=True)[0]
    u_t = torch.autograd.grad(u.sum(), t, create_graph=True)[0]
    if monitor is not None:
        monitor.u_x.append(u_x.detach().abs().mean().item())
        monitor.points.append(len(x))
    pde = u_x - 2 * u_t - u
    return pde


def boundary_data(n=64):
    # BC tells us that for any x in range[0,2] and time=0, the value of u is given by 6e^(-3x)
    g = torch.Generator().manual_seed(0)
    x_bc = torch.rand(n, 1, generator=g) * 2.0
    t_bc = torch.zeros(n, 1)
    u_bc = 6 * torch.exp(-3 * x_bc)
    return x_bc, t_bc, u_bc


def make_batches(n):
    # one seed per epoch: the collocation points are re-drawn every epoch
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    net = Net().to(device)
    mse_cost_function = torch.nn.MSELoss()  # Mean squared error
    optimizer = torch.optim.Adam(net.parameters())
    monitor = DerivativeMonitor()
    x_bc, t_bc, u_bc = boundary_data()
    pt_x_bc = x_bc.to(device)
    pt_t_bc = t_bc.to(device)
    pt_u_bc = u_bc.to(device)

    losses = []
    for epoch, seed in enumerate(batches):
        optimizer.zero_grad()  # to make the gradients zero

        # Loss based on boundary conditions
        net_bc_out = net(pt_x_bc, pt_t_bc)  # output of u(x,t)
        mse_u = mse_cost_function(net_bc_out, pt_u_bc)

        # Loss based on PDE
        g = torch.Generator().manual_seed(seed)
        x_collocation = torch.rand(128, 1, generator=g) * 2.0
        t_collocation = torch.rand(128, 1, generator=g)
        all_zeros = torch.zeros(128, 1)

        pt_x_collocation = x_collocation.clone().requires_grad_(True)
        pt_t_collocation = t_collocation.clone().requires_grad_(True)
        f_out = f(pt_x_collocation, pt_t_collocation, net, monitor)  # output of f(x,t)
        mse_f = mse_cost_function(f_out, all_zeros)

        # Combining the loss functions
        loss = mse_u + mse_f

        loss.backward()  # This is for computing gradients using backward propagation
        optimizer.step()  # This is equivalent to : theta_new = theta_old - alpha * derivative of J w.r.t theta
        losses.append(loss.item())
    return losses, monitor
