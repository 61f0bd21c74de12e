# Source: https://github.com/wavefrontshaping/complexPyTorch/pull/23
# Shape: a complex-valued batch norm updates the running means with detached batch means, but writes the three running covariance terms into columns of one registered buffer by slot assignment, each blended from the attached batch covariance and the column's previous value, outside any no_grad block: the buffer gains a graph at every training forward and chains them all.
# Verdict: leak
import torch
import torch.nn as nn


class ComplexBatchNorm1d(nn.Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1):
        super().__init__()
        self.eps = eps
        self.momentum = momentum
        self.weight = nn.Parameter(torch.tensor([[0.7071, 0.7071, 0.0]]).repeat(num_features, 1))
        self.bias = nn.Parameter(torch.zeros(num_features, 2))
        self.register_buffer("running_mean_r", torch.zeros(num_features))
        self.register_buffer("running_mean_i", torch.zeros(num_features))
        self.register_buffer("running_covar", torch.zeros(num_features, 3))
        self.running_covar[:, 0] = 0.7071
        self.running_covar[:, 1] = 0.7071

    def forward(self, real, imag):
        if self.training:
            mean_r = real.mean(0)
            mean_i = imag.mean(0)
            n = real.size(0)
            self.running_mean_r = self.momentum * mean_r.detach() + (1 - self.momentum) * self.running_mean_r
            self.running_mean_i = self.momentum * mean_i.detach() + (1 - self.momentum) * self.running_mean_i
            real = real - mean_r
            imag = imag - mean_i
            Crr = real.pow(2).mean(0) + self.eps
            Cii = imag.pow(2).mean(0) + self.eps
            Cri = (real * imag).mean(0)
            self.running_covar[:, 0] = self.momentum * Crr * n / (n - 1) + (1 - self.momentum) * self.running_covar[:, 0]  # TLK103
            self.running_covar[:, 1] = self.momentum * Cii * n / (n - 1) + (1 - self.momentum) * self.running_covar[:, 1]  # TLK103
            self.running_covar[:, 2] = self.momentum * Cri * n / (n - 1) + (1 - self.momentum) * self.running_covar[:, 2]  # TLK103
        else:
            real = real - self.running_mean_r
            imag = imag - self.running_mean_i
            Crr = self.running_covar[:, 0] + self.eps
            Cii = self.running_covar[:, 1] + self.eps
            Cri = self.running_covar[:, 2]
        det = Crr * Cii - Cri.pow(2)
        s = torch.sqrt(det)
        t = torch.sqrt(Cii + Crr + 2 * s)
        inverse_st = 1.0 / (s * t)
        Rrr, Rii, Rri = (Cii + s) * inverse_st, (Crr + s) * inverse_st, -Cri * inverse_st
        real, imag = Rrr * real + Rri * imag, Rii * imag + Rri * real
        out_r = self.weight[:, 0] * real + self.weight[:, 2] * imag + self.bias[:, 0]
        out_i = self.weight[:, 2] * real + self.weight[:, 1] * imag + self.bias[:, 1]
        return out_r, out_i


class ComplexClassifier(nn.Module):
    def __init__(self, n_in=128, n_hidden=64, n_classes=10):
        super().__init__()
        self.fc_r = nn.Linear(n_in, n_hidden)
        self.fc_i = nn.Linear(n_in, n_hidden)
        self.norm = ComplexBatchNorm1d(n_hidden)
        self.head = nn.Linear(n_hidden, n_classes)

    def forward(self, real, imag):
        r, i = self.norm(self.fc_r(real) - self.fc_i(imag), self.fc_r(imag) + self.fc_i(real))
        return self.head(torch.sqrt(r.pow(2) + i.pow(2)))


def train(model, loader, epochs=5):
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    criterion = nn.CrossEntropyLoss()
    for _ in range(epochs):
        for real, imag, labels in loader:
            optimizer.zero_grad()
            loss = criterion(model(real, imag), labels)
            loss.backward()
            optimizer.step()
