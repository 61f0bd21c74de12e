# Source: https://github.com/danieltan07/learning-to-reweight-examples/blob/182aad0ddd11a38d86b7abfb34e35b54bc7efb39/meta_layers.py
# Shape: each step builds a fresh meta_net and calls l_f_meta.backward(create_graph=True) so that update_params() can read param.grad; every meta parameter's .grad now holds a graph that points back to the parameter (param -> grad -> graph -> param), so the discarded meta_net of every step is never freed.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


def to_var(x, requires_grad=True):
    return x.clone().detach().requires_grad_(requires_grad)


class MetaModule(nn.Module):
    # adopted from: Adrien Ecoffet https://github.com/AdrienLE
    def params(self):
        for name, param in self.named_params(self):
            yield param

    def named_leaves(self):
        return []

    def named_params(self, curr_module=None, memo=None, prefix=''):
        if memo is None:
            memo = set()
        if hasattr(curr_module, 'named_leaves'):
            for name, p in curr_module.named_leaves():
                if p is not None and p not in memo:
                    memo.add(p)
                    yield prefix + ('.' if prefix else '') + name, p
        else:
            for name, p in curr_module._parameters.items():
                if p is not None and p not in memo:
                    memo.add(p)
                    yield prefix + ('.' if prefix else '') + name, p
        for mname, module in curr_module.named_children():
            submodule_prefix = prefix + ('.' if prefix else '') + mname
            for name, p in self.named_params(module, memo, submodule_prefix):
                yield name, p

    def update_params(self, lr_inner, first_order=False, source_params=None):
        if source_params is not None:
            for tgt, grad in zip(self.named_params(self), source_params):
                name_t, param_t = tgt
                if first_order:
                    grad = to_var(grad.detach().data)
                self.set_param(self, name_t, param_t - lr_inner * grad)
        else:
            for name, param in self.named_params(self):
                grad = param.grad
                if first_order:
                    grad = to_var(grad.detach().data)
                self.set_param(self, name, param - lr_inner * grad)

    def set_param(self, curr_mod, name, param):
        if '.' in name:
            n = name.split('.')
            module_name = n[0]
            rest = '.'.join(n[1:])
            for name, mod in curr_mod.named_children():
                if module_name == name:
                    self.set_param(mod, rest, param)
                    break
        else:
            setattr(curr_mod, name, param)


class MetaLinear(MetaModule):
    def __init__(self, *args, **kwargs):
        super().__init__()
        ignore = nn.Linear(*args, **kwargs)
        self.register_buffer('weight', to_var(ignore.weight.data, requires_grad=True))
        self.register_buffer('bias', to_var(ignore.bias.data, requires_grad=True))

    def forward(self, x):
        return F.linear(x, self.weight, self.bias)

    def named_leaves(self):
        return [('weight', self.weight), ('bias', self.bias)]


class MetaConv2d(MetaModule):
    def __init__(self, *args, **kwargs):
        super().__init__()
        ignore = nn.Conv2d(*args, **kwargs)
        self.stride = ignore.stride
        self.padding = ignore.padding
        self.register_buffer('weight', to_var(ignore.weight.data, requires_grad=True))
        self.register_buffer('bias', to_var(ignore.bias.data, requires_grad=True))

    def forward(self, x):
        return F.conv2d(x, self.weight, self.bias, self.stride, self.padding)

    def named_leaves(self):
        return [('weight', self.weight), ('bias', self.bias)]


class LeNet(MetaModule):
    def __init__(self, n_out):
        super().__init__()
        layers = [MetaConv2d(1, 6, kernel_size=5), nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2),
                  MetaConv2d(6, 16, kernel_size=3), nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2)]
        self.main = nn.Sequential(*layers)
        self.fc_layers = nn.Sequential(MetaLinear(16 * 2 * 2, 120), nn.ReLU(),
                                       MetaLinear(120, 84), nn.ReLU(),
                                       MetaLinear(84, n_out))

    def forward(self, x):
        x = self.main(x)
        x = x.view(-1, 16 * 2 * 2)
        return self.fc_layers(x).squeeze()


# ----------------------------------------------------------------------------- data
def make_batches(n_batches, batch_size=64, flip=0.4, seed=0):
    """Imbalanced, label-noisy binary task plus a small clean validation set."""
    g = torch.Generator().manual_seed(seed)
    proto = torch.randn(2, 1, 16, 16, generator=g)

    def sample(n, noisy):
        y = (torch.rand(n, generator=g) < 0.3).float()
        x = proto[y.long()] + 0.8 * torch.randn(n, 1, 16, 16, generator=g)
        if noisy:
            f = torch.rand(n, generator=g) < flip
            y = torch.where(f, 1 - y, y)
        return x, y

    val_data, val_labels = sample(32, noisy=False)
    for _ in range(n_batches):
        image, labels = sample(batch_size, noisy=True)
        yield image, labels, val_data, val_labels


def build_model(lr):
    net = LeNet(n_out=1)
    opt = torch.optim.SGD(net.params(), lr, momentum=0.9, weight_decay=5e-4)
    return net, opt


def train_lre(hyperparameters, steps):
    net, opt = build_model(hyperparameters['lr'])
    meta_losses_clean = []
    net_losses = []
    for image, labels, val_data, val_labels in make_batches(steps):
        net.train()
        # initialize a dummy network for the meta learning of the weights
        meta_net = LeNet(n_out=1)
        meta_net.load_state_dict(net.state_dict())

        # Lines 4 - 5 initial forward pass to compute the initial weighted loss
        y_f_hat = meta_net(image)
        cost = F.binary_cross_entropy_with_logits(y_f_hat, labels, reduction='none')
        eps = torch.zeros(cost.size(), requires_grad=True)
        l_f_meta = torch.sum(cost * eps)

        meta_net.zero_grad()

        # Line 6 perform a parameter update
        l_f_meta.backward(create_graph=True)  # TLK302
        meta_net.update_params(hyperparameters['lr'])

        # Line 8 - 10 2nd forward pass and getting the gradients with respect to epsilon
        y_g_hat = meta_net(val_data)
        l_g_meta = F.binary_cross_entropy_with_logits(y_g_hat, val_labels)
        grad_eps = torch.autograd.grad(l_g_meta, eps, only_inputs=True)[0]

        # Line 11 computing and normalizing the weights
        w_tilde = torch.clamp(-grad_eps, min=0)
        norm_c = torch.sum(w_tilde)
        if norm_c != 0:
            w = w_tilde / norm_c
        else:
            w = w_tilde

        # Lines 12 - 14 computing for the loss with the computed weights
        y_f_hat = net(image)
        cost = F.binary_cross_entropy_with_logits(y_f_hat, labels, reduction='none')
        l_f = torch.sum(cost * w)

        opt.zero_grad()
        l_f.backward()
        opt.step()

        meta_losses_clean.append(l_g_meta.item())
        net_losses.append(l_f.item())
    return net, meta_losses_clean, net_losses


def run(steps):
    torch.manual_seed(1)
    net, meta_losses_clean, net_losses = train_lre({'lr': 1e-3}, steps)
    return {"net": net, "meta_losses_clean": meta_losses_clean, "net_losses": net_losses}


if __name__ == "__main__":
    run(10)
