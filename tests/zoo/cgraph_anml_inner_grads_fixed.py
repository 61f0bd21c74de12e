# Source: https://github.com/uvm-neurobotics-lab/ANML/issues/3
# Shape: the interference log stores the flattened inner gradients detached; the create_graph=True gradients themselves build the fast weights and are consumed by the same step's meta-loss backward.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

ARGS = {"in_dim": 8, "hidden": 16, "ways": 3, "shots": 4, "update_lr": 0.1, "meta_lr": 1e-3,
        "update_step": 2}


class Learner(nn.Module):
    """Functional MLP whose forward can run on an explicit list of fast weights."""

    def __init__(self, in_dim, hidden, ways):
        super().__init__()
        self.vars = nn.ParameterList([
            nn.Parameter(torch.randn(hidden, in_dim) * 0.1), nn.Parameter(torch.zeros(hidden)),
            nn.Parameter(torch.randn(ways, hidden) * 0.1), nn.Parameter(torch.zeros(ways))])

    def forward(self, x, vars=None):
        w1, b1, w2, b2 = self.vars if vars is None else vars
        return F.linear(F.relu(F.linear(x, w1, b1)), w2, b2)


class MetaLearner(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.args = args
        self.net = Learner(args["in_dim"], args["hidden"], args["ways"])
        self.meta_optim = torch.optim.Adam(self.net.parameters(), lr=args["meta_lr"])
        self.interference_log = []

    def inner_update(self, x, y, fast_weights):
        loss = F.cross_entropy(self.net(x, fast_weights), y)
        grad = torch.autograd.grad(loss, fast_weights, create_graph=True)
        self.interference_log.append(torch.cat([g.detach().flatten() for g in grad]))
        return [w - self.args["update_lr"] * g for w, g in zip(fast_weights, grad)]

    def forward(self, x_traj, y_traj, x_rand, y_rand):
        fast_weights = list(self.net.parameters())
        for k in range(self.args["update_step"]):
            fast_weights = self.inner_update(x_traj[k], y_traj[k], fast_weights)
        meta_loss = F.cross_entropy(self.net(x_rand, fast_weights), y_rand)
        self.meta_optim.zero_grad()
        meta_loss.backward()
        self.meta_optim.step()
        with torch.no_grad():
            acc = (self.net(x_rand, fast_weights).argmax(-1) == y_rand).float().mean().item()
        return meta_loss.item(), acc

    def interference(self):
        if len(self.interference_log) < 2:
            return 0.0
        g = torch.stack(self.interference_log).detach()
        g = F.normalize(g, dim=1)
        return (g[1:] * g[:-1]).sum(1).mean().item()


def make_batches(n):
    a = ARGS
    per = a["ways"] * a["shots"]
    out = []
    for _ in range(n):
        x_traj = torch.randn(a["update_step"], per, a["in_dim"])
        y_traj = torch.randint(0, a["ways"], (a["update_step"], per))
        out.append((x_traj, y_traj, torch.randn(per, a["in_dim"]), torch.randint(0, a["ways"], (per,))))
    return out


def run(batches):
    torch.manual_seed(0)
    maml = MetaLearner(ARGS)
    stats = []
    for x_traj, y_traj, x_rand, y_rand in batches:
        stats.append(maml(x_traj, y_traj, x_rand, y_rand))
    maml.interference()
