# Source: https://github.com/fungtion/DANN/blob/master/train/main.py
# Shape: the combined domain loss is backwarded with retain_graph=True although nothing backwards through it again, so each step's source and target graphs keep their saved activations; train_log then appends the attached err_* tensors every iteration, which keeps all of those retained graphs alive for the whole run.
# Verdict: leak
"""DANN (gradient reversal) MNIST -> MNIST-M style adaptation, following
train/main.py: ReverseLayerF, CNNModel with class/domain heads, the
p/alpha schedule, source and target passes per iteration.
"""
import math
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.optim as optim
from torch.autograd import Function

cfg = SimpleNamespace(lr=1e-3, batch_size=16, image_size=16, n_epoch=1, log_interval=10)


# --------------------------------------------------------------------------
# models/functions.py + models/model.py
# --------------------------------------------------------------------------
class ReverseLayerF(Function):
    @staticmethod
    def forward(ctx, x, alpha):
        ctx.alpha = alpha
        return x.view_as(x)

    @staticmethod
    def backward(ctx, grad_output):
        output = grad_output.neg() * ctx.alpha
        return output, None


class CNNModel(nn.Module):
    def __init__(self):
        super(CNNModel, self).__init__()
        self.feature = nn.Sequential()
        self.feature.add_module("f_conv1", nn.Conv2d(3, 16, kernel_size=3, padding=1))
        self.feature.add_module("f_bn1", nn.BatchNorm2d(16))
        self.feature.add_module("f_pool1", nn.MaxPool2d(2))
        self.feature.add_module("f_relu1", nn.ReLU(True))
        self.feature.add_module("f_conv2", nn.Conv2d(16, 24, kernel_size=3, padding=1))
        self.feature.add_module("f_bn2", nn.BatchNorm2d(24))
        self.feature.add_module("f_pool2", nn.MaxPool2d(2))
        self.feature.add_module("f_relu2", nn.ReLU(True))

        feat_dim = 24 * (cfg.image_size // 4) ** 2
        self.class_classifier = nn.Sequential()
        self.class_classifier.add_module("c_fc1", nn.Linear(feat_dim, 64))
        self.class_classifier.add_module("c_bn1", nn.BatchNorm1d(64))
        self.class_classifier.add_module("c_relu1", nn.ReLU(True))
        self.class_classifier.add_module("c_fc2", nn.Linear(64, 10))
        self.class_classifier.add_module("c_softmax", nn.LogSoftmax(dim=1))

        self.domain_classifier = nn.Sequential()
        self.domain_classifier.add_module("d_fc1", nn.Linear(feat_dim, 64))
        self.domain_classifier.add_module("d_bn1", nn.BatchNorm1d(64))
        self.domain_classifier.add_module("d_relu1", nn.ReLU(True))
        self.domain_classifier.add_module("d_fc2", nn.Linear(64, 2))
        self.domain_classifier.add_module("d_softmax", nn.LogSoftmax(dim=1))

    def forward(self, input_data, alpha):
        input_data = input_data.expand(input_data.data.shape[0], 3, cfg.image_size, cfg.image_size)
        feature = self.feature(input_data)
        feature = feature.view(feature.size(0), -1)
        reverse_feature = ReverseLayerF.apply(feature, alpha)
        class_output = self.class_classifier(feature)
        domain_output = self.domain_classifier(reverse_feature)
        return class_output, domain_output


# --------------------------------------------------------------------------
# data: "mnist" digits as blobs, "mnist_m" = same digits over coloured noise
# --------------------------------------------------------------------------
def make_batches(n_batches, batch_size=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    S = cfg.image_size
    protos = torch.rand(10, 1, S, S, generator=g).gt(0.6).float()
    for _ in range(n_batches):
        s_label = torch.randint(0, 10, (batch_size,), generator=g)
        s_img = protos[s_label] + 0.1 * torch.randn(batch_size, 1, S, S, generator=g)
        t_label = torch.randint(0, 10, (batch_size,), generator=g)
        t_img = protos[t_label].expand(-1, 3, -1, -1) * torch.rand(batch_size, 3, 1, 1, generator=g)
        t_img = t_img + 0.3 * torch.rand(batch_size, 3, S, S, generator=g)
        yield (s_img, s_label), (t_img, t_label)


def test(net, loader, alpha=0.0):
    net.eval()
    n_correct, n_total = 0, 0
    with torch.no_grad():
        for (_, _), (t_img, t_label) in loader:
            class_output, _ = net(input_data=t_img, alpha=alpha)
            pred = class_output.data.max(1, keepdim=True)[1]
            n_correct += pred.eq(t_label.data.view_as(pred)).cpu().sum().item()
            n_total += t_label.size(0)
    net.train()
    return n_correct * 1.0 / n_total


# --------------------------------------------------------------------------
# train/main.py
# --------------------------------------------------------------------------
def run(steps):
    torch.manual_seed(0)
    my_net = CNNModel()
    optimizer = optim.Adam(my_net.parameters(), lr=cfg.lr)
    loss_class = torch.nn.NLLLoss()
    loss_domain = torch.nn.NLLLoss()
    for p in my_net.parameters():
        p.requires_grad = True

    train_log = {"err_s_label": [], "err_s_domain": [], "err_t_domain": []}
    len_dataloader = steps
    for epoch in range(cfg.n_epoch):
        for i, ((s_img, s_label), (t_img, _)) in enumerate(make_batches(steps, cfg.batch_size)):
            p = float(i + epoch * len_dataloader) / cfg.n_epoch / len_dataloader
            alpha = 2. / (1. + math.exp(-10 * p)) - 1

            my_net.zero_grad()

            # training model using source data
            batch_size = len(s_label)
            domain_label = torch.zeros(batch_size).long()
            class_output, domain_output = my_net(input_data=s_img, alpha=alpha)
            err_s_label = loss_class(class_output, s_label)
            err_s_domain = loss_domain(domain_output, domain_label)

            # the label loss goes first; the domain losses below still need
            # the source feature graph, hence retain_graph here
            err_s_label.backward(retain_graph=True)

            # training model using target data
            batch_size = len(t_img)
            domain_label = torch.ones(batch_size).long()
            _, domain_output = my_net(input_data=t_img, alpha=alpha)
            err_t_domain = loss_domain(domain_output, domain_label)

            err_domain = err_t_domain + err_s_domain
            err_domain.backward(retain_graph=True)  # TLK201
            optimizer.step()

            train_log["err_s_label"].append(err_s_label)  # TLK102
            train_log["err_s_domain"].append(err_s_domain.item())
            train_log["err_t_domain"].append(err_t_domain.item())

            if (i + 1) % cfg.log_interval == 0:
                print("epoch: %d, [iter: %d / all %d], err_s_label: %f, err_s_domain: %f, err_t_domain: %f"
                      % (epoch, i + 1, len_dataloader, err_s_label.item(),
                         err_s_domain.item(), err_t_domain.item()))

    acc_t = test(my_net, make_batches(2, cfg.batch_size, seed=3))
    return {"model": my_net, "train_log": train_log, "acc_target": acc_t}


if __name__ == "__main__":
    run(10)
