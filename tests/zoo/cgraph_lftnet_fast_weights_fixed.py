# Source: https://github.com/hytseng0509/CrossDomainFewShot/issues/40
# Shape: fast weights are cleared every episode and the create_graph=True meta-gradient is backwarded (through weight.fast and ft_loss) in the same episode; only the .item() of its norm is kept for logging.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class Params:
    train_n_way = 5
    n_shot = 2
    n_query = 3
    img = 12
    lr = 1e-3


def make_batches(n, params=Params, seed=0):
    """Pairs of episodes: (seen-domain episode, pseudo-unseen-domain episode)."""
    g = torch.Generator().manual_seed(seed)
    shape = (params.train_n_way, params.n_shot + params.n_query, 3, params.img, params.img)
    return [(torch.randn(*shape, generator=g), torch.randn(*shape, generator=g) * 1.5 + 0.3)
            for _ in range(n)]


class DataAdam:
    """Adam written against p.data, as in the torch 1.4-era optimizer this code base used."""

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0):
        self.param_groups = [{"params": list(params), "lr": lr}]
        self.betas, self.eps, self.wd = betas, eps, weight_decay
        self.state = {}

    def zero_grad(self):
        for p in self.param_groups[0]["params"]:
            p.grad = None

    def step(self):
        b1, b2 = self.betas
        lr = self.param_groups[0]["lr"]
        for p in self.param_groups[0]["params"]:
            if p.grad is None:
                continue
            g = p.grad.data
            if self.wd:
                g = g.add(p.data, alpha=self.wd)
            st = self.state.setdefault(id(p), {"step": 0, "m": torch.zeros_like(p.data), "v": torch.zeros_like(p.data)})
            st["step"] += 1
            st["m"].mul_(b1).add_(g, alpha=1 - b1)
            st["v"].mul_(b2).addcmul_(g, g, value=1 - b2)
            denom = (st["v"] / (1 - b2 ** st["step"])).sqrt().add_(self.eps)
            p.data.addcdiv_(st["m"], denom, value=-lr / (1 - b1 ** st["step"]))


# --- backbone with fast weights (L2L / MAML style) ---------------------------
class Linear_fw(nn.Linear):
    def forward(self, x):
        w = self.weight.fast if self.weight.fast is not None else self.weight
        b = self.bias.fast if self.bias.fast is not None else self.bias
        return F.linear(x, w, b)


class Conv2d_fw(nn.Conv2d):
    def forward(self, x):
        w = self.weight.fast if self.weight.fast is not None else self.weight
        b = None
        if self.bias is not None:
            b = self.bias.fast if self.bias.fast is not None else self.bias
        return F.conv2d(x, w, b, self.stride, self.padding)


class FeatureWiseTransformation2d_fw(nn.Module):
    feature_augment = True

    def __init__(self, num_features):
        super().__init__()
        self.gamma = nn.Parameter(torch.ones(1, num_features, 1, 1) * 0.3)
        self.beta = nn.Parameter(torch.ones(1, num_features, 1, 1) * 0.5)

    def forward(self, x):
        out = F.group_norm(x, 1)
        if self.feature_augment and self.training:
            gamma = (1 + torch.randn(1, x.shape[1], 1, 1) * F.softplus(self.gamma)).expand_as(out)
            beta = (torch.randn(1, x.shape[1], 1, 1) * F.softplus(self.beta)).expand_as(out)
            out = gamma * out + beta
        return out


class ConvBlock(nn.Module):
    def __init__(self, indim, outdim):
        super().__init__()
        self.C = Conv2d_fw(indim, outdim, 3, padding=1)
        self.FT = FeatureWiseTransformation2d_fw(outdim)

    def forward(self, x):
        return F.max_pool2d(F.relu(self.FT(self.C(x))), 2)


class Conv4NP(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(ConvBlock(3, 16), ConvBlock(16, 16))
        self.final_feat_dim = 16 * 3 * 3

    def forward(self, x):
        return self.trunk(x).flatten(1)


class ProtoNet(nn.Module):
    def __init__(self, n_way, n_support):
        super().__init__()
        self.feature = Conv4NP()
        self.proj = Linear_fw(self.feature.final_feat_dim, 32)
        self.n_way, self.n_support, self.n_query = n_way, n_support, 0
        self.change_way = True

    def set_forward(self, x):
        z = self.proj(self.feature(x.reshape(-1, *x.shape[2:])))
        z = z.view(self.n_way, self.n_support + self.n_query, -1)
        z_proto = z[:, :self.n_support].mean(1)
        z_query = z[:, self.n_support:].reshape(self.n_way * self.n_query, -1)
        return -((z_query[:, None, :] - z_proto[None, :, :]) ** 2).sum(-1)

    def set_forward_loss(self, x):
        y_query = torch.arange(self.n_way).repeat_interleave(self.n_query)
        scores = self.set_forward(x)
        return scores, F.cross_entropy(scores, y_query)


class LFTNet(nn.Module):
    def __init__(self, params=Params):
        super().__init__()
        self.model = ProtoNet(params.train_n_way, params.n_shot)
        for p in self.model.parameters():
            p.fast = None
        model_params, ft_params = self.split_model_parameters()
        self.model_optim = DataAdam(model_params, lr=params.lr)
        self.ft_optim = DataAdam(ft_params, lr=params.lr, weight_decay=1e-8)
        self.meta_grad_norms = []  # for the tensorboard curve

    # split the parameters of feature-wise transformation layers and others
    def split_model_parameters(self):
        model_params, ft_params = [], []
        for n, p in self.model.named_parameters():
            if n.split(".")[-1] in ("gamma", "beta"):
                ft_params.append(p)
            else:
                model_params.append(p)
        return model_params, ft_params

    def reset_fast_weights(self):
        for weight in self.model.parameters():
            weight.fast = None

    def trainall_loop(self, epoch, episodes, total_it):
        avg_model_loss, avg_ft_loss = 0.0, 0.0
        for i, (x, x_new) in enumerate(episodes):
            # clear fast weight
            self.reset_fast_weights()

            # classification loss with ft layers (optimize model)
            self.model.train()
            self.model.n_query = x.size(1) - self.model.n_support
            _, model_loss = self.model.set_forward_loss(x)

            # update model parameters according to model_loss
            model_params = self.split_model_parameters()[0]
            meta_grad = torch.autograd.grad(model_loss, model_params, create_graph=True)
            for k, weight in enumerate(model_params):
                weight.fast = weight - self.model_optim.param_groups[0]["lr"] * meta_grad[k]
            meta_grad_norm = torch.sqrt(sum((g ** 2).sum() for g in meta_grad))
            self.meta_grad_norms.append(meta_grad_norm.item())
            meta_grad = [g.detach() for g in meta_grad]

            # classification loss with updated model and without ft layers (optimize ft layers)
            self.model.eval()
            _, ft_loss = self.model.set_forward_loss(x_new)

            # optimize model
            self.model_optim.zero_grad()
            for k, weight in enumerate(model_params):
                weight.grad = meta_grad[k] if weight.grad is None else weight.grad + meta_grad[k]
            self.model_optim.step()

            # optimize ft
            self.ft_optim.zero_grad()
            ft_loss.backward()
            self.ft_optim.step()

            avg_model_loss += model_loss.item()
            avg_ft_loss += ft_loss.item()
            total_it += 1
        self.reset_fast_weights()
        return total_it, avg_model_loss / max(len(episodes), 1), avg_ft_loss / max(len(episodes), 1)


def run(steps):
    torch.manual_seed(0)
    net = LFTNet()
    net.reset_fast_weights()          # cleared when the epoch starts
    total_it, model_loss, ft_loss = net.trainall_loop(0, make_batches(steps), 0)
    return {"net": net, "losses": (model_loss, ft_loss), "total_it": total_it}


if __name__ == "__main__":
    run(10)
