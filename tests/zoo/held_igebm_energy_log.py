# Source: https://github.com/rosinality/igebm-pytorch/blob/3c4f104af8781f232fd994759c60b7c19f13eba7/train.py
# Shape: the SGLD chain and the sample buffer are handled with .data/.detach() as in the repo, but the energy-gap monitor appends `pos_out.mean() - neg_out.mean()` (still attached to the training forward) to a history list every step, so every step's EBM graph is held until training ends.
# Verdict: leak
import random

import torch
from torch import nn, optim
import torch.nn.functional as F


class SpectralNorm:
    def __init__(self, name):
        self.name = name

    def compute_weight(self, module):
        weight = getattr(module, self.name + '_orig')
        u = getattr(module, self.name + '_u')
        size = weight.size()
        weight_mat = weight.contiguous().view(size[0], -1)
        with torch.no_grad():
            v = weight_mat.t() @ u
            v = v / v.norm()
            u = weight_mat @ v
            u = u / u.norm()
        sigma = u @ weight_mat @ v
        weight_sn = weight / sigma
        return weight_sn, u

    @staticmethod
    def apply(module, name):
        fn = SpectralNorm(name)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + '_orig', weight)
        input_size = weight.size(0)
        u = weight.new_empty(input_size).normal_()
        module.register_buffer(name, weight)
        module.register_buffer(name + '_u', u)
        module.register_forward_pre_hook(fn)
        return fn

    def __call__(self, module, input):
        weight_sn, u = self.compute_weight(module)
        setattr(module, self.name, weight_sn)
        setattr(module, self.name + '_u', u)


def spectral_norm(module, init=True, std=1, bound=False):
    if init:
        nn.init.normal_(module.weight, 0, std)
    if hasattr(module, 'bias') and module.bias is not None:
        module.bias.data.zero_()
    SpectralNorm.apply(module, 'weight')
    return module


class ResBlock(nn.Module):
    def __init__(self, in_channel, out_channel, n_class=None, downsample=False):
        super().__init__()
        self.conv1 = spectral_norm(nn.Conv2d(in_channel, out_channel, 3, padding=1, bias=False))
        self.conv2 = spectral_norm(nn.Conv2d(out_channel, out_channel, 3, padding=1, bias=False), std=1e-10, bound=True)
        self.class_embed = None
        if n_class is not None:
            class_embed = nn.Embedding(n_class, out_channel * 2 * 2)
            class_embed.weight.data[:, : out_channel * 2] = 1
            class_embed.weight.data[:, out_channel * 2:] = 0
            self.class_embed = class_embed
        self.skip = None
        if in_channel != out_channel or downsample:
            self.skip = nn.Sequential(spectral_norm(nn.Conv2d(in_channel, out_channel, 1, bias=False)))
        self.downsample = downsample

    def forward(self, input, class_id=None):
        out = input
        out = self.conv1(out)
        if self.class_embed is not None:
            embed = self.class_embed(class_id).view(input.shape[0], -1, 1, 1)
            weight1, weight2, bias1, bias2 = embed.chunk(4, 1)
            out = weight1 * out + bias1
        out = F.leaky_relu(out, negative_slope=0.2)
        out = self.conv2(out)
        if self.class_embed is not None:
            out = weight2 * out + bias2
        if self.skip is not None:
            skip = self.skip(input)
        else:
            skip = input
        out = out + skip
        if self.downsample:
            out = F.avg_pool2d(out, 2)
        out = F.leaky_relu(out, negative_slope=0.2)
        return out


class IGEBM(nn.Module):
    def __init__(self, n_class=None):
        super().__init__()
        self.conv1 = spectral_norm(nn.Conv2d(3, 16, 3, padding=1), std=1)
        self.blocks = nn.ModuleList([
            ResBlock(16, 16, n_class, downsample=True),
            ResBlock(16, 32, n_class, downsample=True),
        ])
        self.linear = nn.Linear(32, 1)

    def forward(self, input, class_id=None):
        out = self.conv1(input)
        out = F.leaky_relu(out, negative_slope=0.2)
        for block in self.blocks:
            out = block(out, class_id)
        out = F.relu(out)
        out = out.view(out.shape[0], out.shape[1], -1).sum(2)
        out = self.linear(out)
        return out


class SampleBuffer:
    def __init__(self, max_samples=10000):
        self.max_samples = max_samples
        self.buffer = []

    def __len__(self):
        return len(self.buffer)

    def push(self, samples, class_ids=None):
        samples = samples.detach().to('cpu')
        class_ids = class_ids.detach().to('cpu')
        for sample, class_id in zip(samples, class_ids):
            self.buffer.append((sample.detach(), class_id))
            if len(self.buffer) > self.max_samples:
                self.buffer.pop(0)

    def get(self, n_samples, device='cpu'):
        items = random.choices(self.buffer, k=n_samples)
        samples, class_ids = zip(*items)
        samples = torch.stack(samples, 0)
        class_ids = torch.tensor(class_ids)
        return samples.to(device), class_ids.to(device)


IMG = 8
BATCH = 16


def sample_buffer(buffer, batch_size=BATCH, p=0.95, device='cpu'):
    if len(buffer) < 1:
        return (
            torch.rand(batch_size, 3, IMG, IMG, device=device),
            torch.randint(0, 10, (batch_size,), device=device),
        )
    n_replay = int((torch.rand(batch_size) < p).sum())
    replay_sample, replay_id = buffer.get(n_replay)
    random_sample = torch.rand(batch_size - n_replay, 3, IMG, IMG, device=device)
    random_id = torch.randint(0, 10, (batch_size - n_replay,), device=device)
    return (
        torch.cat([replay_sample, random_sample], 0),
        torch.cat([replay_id, random_id], 0),
    )


def requires_grad(parameters, flag=True):
    for p in parameters:
        p.requires_grad = flag


def clip_grad(parameters, optimizer):
    with torch.no_grad():
        for group in optimizer.param_groups:
            for p in group['params']:
                state = optimizer.state[p]
                if 'step' not in state or state['step'] < 1:
                    continue
                step = state['step']
                exp_avg_sq = state['exp_avg_sq']
                _, beta2 = group['betas']
                bound = 3 * torch.sqrt(exp_avg_sq / (1 - beta2 ** step)) + 0.1
                p.grad.data.copy_(torch.max(torch.min(p.grad.data, bound), -bound))


def make_batches(n):
    # one CIFAR-like positive batch seed per step
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches, alpha=1, step_size=10, sample_step=5, device='cpu'):
    random.seed(0)
    model = IGEBM(10).to(device)
    buffer = SampleBuffer(max_samples=64)
    noise = torch.randn(BATCH, 3, IMG, IMG, device=device)

    parameters = list(model.parameters())
    optimizer = optim.Adam(parameters, lr=1e-4, betas=(0.0, 0.999))
    energy_history = {'gap': [], 'loss': []}

    for i, seed in enumerate(batches):
        g = torch.Generator().manual_seed(seed)
        pos_img = torch.rand(BATCH, 3, IMG, IMG, generator=g)
        pos_id = torch.randint(0, 10, (BATCH,), generator=g)

        neg_img, neg_id = sample_buffer(buffer, pos_img.shape[0])
        neg_img.requires_grad = True

        requires_grad(parameters, False)
        model.eval()

        for k in range(sample_step):
            if noise.shape[0] != neg_img.shape[0]:
                noise = torch.randn(neg_img.shape[0], 3, IMG, IMG, device=device)
            noise.normal_(0, 0.005)
            neg_img.data.add_(noise.data)

            neg_out = model(neg_img, neg_id)
            neg_out.sum().backward()
            neg_img.grad.data.clamp_(-0.01, 0.01)

            neg_img.data.add_(neg_img.grad.data, alpha=-step_size)

            neg_img.grad.detach_()
            neg_img.grad.zero_()

            neg_img.data.clamp_(0, 1)

        neg_img = neg_img.detach()

        requires_grad(parameters, True)
        model.train()

        model.zero_grad()

        pos_out = model(pos_img, pos_id)
        neg_out = model(neg_img, neg_id)

        loss = alpha * (pos_out ** 2 + neg_out ** 2)
        loss = loss + (pos_out - neg_out)
        loss = loss.mean()
        loss.backward()

        clip_grad(parameters, optimizer)

        optimizer.step()

        buffer.push(neg_img, neg_id)

        energy_history['gap'].append(pos_out.mean() - neg_out.mean())  # TLK102
        energy_history['loss'].append(loss.item())
        desc = f'loss: {loss.item():.5f}'

    return energy_history
