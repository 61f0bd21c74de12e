# Source: https://github.com/salesforce/fsnet/blob/298d10c142531c4f8428ed17739970b2fb978935/models/ts2vec/fsnet_.py
# Shape: every SamePadConv.fw_chunks() call folds the controller's attached calibration vector q into the exponential moving average self.q_ema without detaching it, so each adapter carries a chain through all earlier forward passes (controller/calibration graphs included) that grows with every online step.
# Verdict: leak
"""FSNet (Pham et al. 2023) online time-series forecasting, laid out like the
salesforce/fsnet code: fsnet_.py (SamePadConv with gradient EMA, controller,
calibration heads and an associative memory; ConvBlock; DilatedConvEncoder),
fsnet.py (TSEncoder), and exp_fsnet.py (Exp class with vali/test and the
online-learning _ol_one_batch that updates the model on every test batch)."""
import argparse
import time
from itertools import chain

import torch
import torch.nn as nn
import torch.nn.functional as F


# ------------------------------------------------------------------ models/ts2vec/fsnet_.py
def normalize(W):
    W_norm = torch.norm(W)
    W_norm = torch.relu(W_norm - 1) + 1
    return W / W_norm


class SamePadConv(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dilation=1, groups=1, gamma=0.9):
        super().__init__()
        self.receptive_field = (kernel_size - 1) * dilation + 1
        padding = self.receptive_field // 2
        self.conv = nn.Conv1d(in_channels, out_channels, kernel_size, padding=padding,
                              dilation=dilation, groups=groups, bias=False)
        self.bias = torch.nn.Parameter(torch.zeros([out_channels]), requires_grad=True)
        self.padding = padding
        self.dilation = dilation
        self.kernel_size = kernel_size
        self.grad_dim, self.shape = [], []
        for p in self.conv.parameters():
            self.grad_dim.append(p.numel())
            self.shape.append(p.size())
        self.dim = sum(self.grad_dim)
        self.in_channels = in_channels
        self.out_features = out_channels
        self.n_chunks = in_channels
        self.chunk_in_d = self.dim // self.n_chunks
        self.chunk_out_d = int(in_channels * kernel_size // self.n_chunks)

        self.grads = torch.Tensor(sum(self.grad_dim)).fill_(0)
        self.f_grads = torch.Tensor(sum(self.grad_dim)).fill_(0)
        nh = 32
        self.controller = nn.Sequential(nn.Linear(self.chunk_in_d, nh), nn.SiLU())
        self.calib_w = nn.Linear(nh, self.chunk_out_d)
        self.calib_b = nn.Linear(nh, out_channels // in_channels)
        self.calib_f = nn.Linear(nh, out_channels // in_channels)
        dim = self.n_chunks * (self.chunk_out_d + 2 * out_channels // in_channels)
        self.W = nn.Parameter(torch.empty(dim, 32), requires_grad=False)
        nn.init.xavier_uniform_(self.W.data)
        self.W.data = normalize(self.W.data)

        self.remove = 1 if self.receptive_field % 2 == 0 else 0
        self.gamma = gamma
        self.f_gamma = 0.3
        self.cos = nn.CosineSimilarity(dim=0, eps=1e-6)
        self.trigger = 0
        self.tau = 0.75

    def ctrl_params(self):
        return chain(self.controller.parameters(), self.calib_w.parameters(),
                     self.calib_b.parameters(), self.calib_f.parameters())

    def store_grad(self):
        grad = self.conv.weight.grad.data.clone()
        grad = nn.functional.normalize(grad)
        grad = grad.view(-1)
        self.f_grads = self.f_gamma * self.f_grads + (1 - self.f_gamma) * grad
        if not self.training:
            e = self.cos(self.f_grads, self.grads)
            if e < -self.tau:
                self.trigger = 1
        self.grads = self.gamma * self.grads + (1 - self.gamma) * grad

    def fw_chunks(self):
        x = self.grads.view(self.n_chunks, -1)
        rep = self.controller(x)
        w = self.calib_w(rep)
        b = self.calib_b(rep)
        f = self.calib_f(rep)
        q = torch.cat([w.view(-1), b.view(-1), f.view(-1)])
        if not hasattr(self, 'q_ema'):
            setattr(self, 'q_ema', torch.zeros(*q.size()).float())
        else:
            self.q_ema = self.f_gamma * self.q_ema + (1 - self.f_gamma) * q  # TLK103
            q = self.q_ema
        if self.trigger == 1:
            dim = w.size(0)
            self.trigger = 0
            # read
            att = q @ self.W
            att = F.softmax(att / 0.5, dim=-1)
            v, idx = torch.topk(att, 2)
            ww = torch.index_select(self.W, 1, idx)
            idx = idx.unsqueeze(1).float()
            old_w = ww @ idx
            # write memory
            s_att = torch.zeros(att.size(0))
            s_att[idx.squeeze().long()] = v.squeeze()
            W = old_w @ s_att.unsqueeze(0)
            mask = torch.ones(W.size())
            mask[:, idx.squeeze().long()] = self.tau
            self.W.data = mask * self.W.data + (1 - mask) * W
            self.W.data = normalize(self.W.data)
            # retrieve
            ll = torch.split(old_w, dim)
            nw, nb, nf = w.size(1), b.size(1), f.size(1)
            o_w = torch.cat(ll[:nw]); o_b = torch.cat(ll[nw:nw + nb]); o_f = torch.cat(ll[-nf:])
            w = self.tau * w + (1 - self.tau) * o_w.view(w.size())
            b = self.tau * b + (1 - self.tau) * o_b.view(b.size())
            f = self.tau * f + (1 - self.tau) * o_f.view(f.size())
        f = f.view(-1).unsqueeze(0).unsqueeze(2)
        return w.unsqueeze(0), b.view(-1), f

    def forward(self, x):
        w, b, f = self.fw_chunks()
        cw = self.conv.weight * w
        conv_out = F.conv1d(x, cw, padding=self.padding, dilation=self.dilation, bias=self.bias * b)
        return f * conv_out


class ConvBlock(nn.Module):
    def __init__(self, in_channels, out_channels, kernel_size, dilation, final=False, gamma=0.9):
        super().__init__()
        self.conv1 = SamePadConv(in_channels, out_channels, kernel_size, dilation=dilation, gamma=gamma)
        self.conv2 = SamePadConv(out_channels, out_channels, kernel_size, dilation=dilation, gamma=gamma)
        self.projector = nn.Conv1d(in_channels, out_channels, 1) if in_channels != out_channels or final else None

    def forward(self, x):
        residual = x if self.projector is None else self.projector(x)
        x = F.gelu(x)
        x = self.conv1(x)
        x = F.gelu(x)
        x = self.conv2(x)
        return x + residual


class DilatedConvEncoder(nn.Module):
    def __init__(self, in_channels, channels, kernel_size, gamma=0.9):
        super().__init__()
        self.net = nn.Sequential(*[
            ConvBlock(channels[i - 1] if i > 0 else in_channels, channels[i], kernel_size=kernel_size,
                      dilation=2 ** i, final=(i == len(channels) - 1), gamma=gamma)
            for i in range(len(channels))])

    def forward(self, x):
        return self.net(x)


# ------------------------------------------------------------------ models/ts2vec/fsnet.py
class TSEncoder(nn.Module):
    def __init__(self, input_dims, output_dims, hidden_dims=16, depth=2, gamma=0.9):
        super().__init__()
        self.input_fc = nn.Linear(input_dims, hidden_dims)
        self.feature_extractor = DilatedConvEncoder(hidden_dims, [hidden_dims] * depth + [output_dims],
                                                    kernel_size=3, gamma=gamma)
        self.repr_dropout = nn.Dropout(p=0.1)

    def forward(self, x, mask=None):
        nan_mask = ~x.isnan().any(axis=-1)
        x = x.masked_fill(~nan_mask[..., None], 0)
        x = self.input_fc(x)
        x = x.transpose(1, 2)
        x = self.repr_dropout(self.feature_extractor(x))
        return x.transpose(1, 2)


class TS2VecEncoderWrapper(nn.Module):
    def __init__(self, encoder):
        super().__init__()
        self.encoder = encoder

    def forward(self, input):
        return self.encoder(input)[:, -1]


class net(nn.Module):
    def __init__(self, args):
        super().__init__()
        encoder = TSEncoder(input_dims=args.enc_in + args.mark_dims, output_dims=32,
                            hidden_dims=16, depth=2)
        self.encoder = TS2VecEncoderWrapper(encoder)
        self.dim = args.c_out * args.pred_len
        self.regressor = nn.Linear(32, self.dim)

    def forward(self, x):
        return self.regressor(self.encoder(x))

    def store_grad(self):
        for name, layer in self.encoder.named_modules():
            if 'PadConv' in type(layer).__name__:
                layer.store_grad()


# ------------------------------------------------------------------ data / metrics
def make_batches(num_batches, args, seed=0):
    """a noisy multi-seasonal stream, sliced into (x, y, x_mark, y_mark) windows"""
    g = torch.Generator().manual_seed(seed)
    T = args.seq_len + args.pred_len
    for i in range(num_batches):
        t0 = i * args.batch_size
        t = torch.arange(t0, t0 + args.batch_size)[:, None] + torch.arange(T)[None]
        base = torch.stack([torch.sin(2 * torch.pi * t / 24 + k) + 0.3 * torch.sin(2 * torch.pi * t / 7 * (k + 1))
                            for k in range(args.enc_in)], -1)
        series = base + 0.1 * torch.randn(base.shape, generator=g)
        mark = torch.stack([(t % 24) / 23 - 0.5, (t % 7) / 6 - 0.5, (t % 30) / 29 - 0.5, (t % 12) / 11 - 0.5], -1)
        yield series[:, :args.seq_len], series[:, -args.pred_len:], mark[:, :args.seq_len], mark[:, -args.pred_len:]


def metric(pred, true):
    mae = (pred - true).abs().mean().item()
    mse = ((pred - true) ** 2).mean().item()
    return mae, mse


def cumavg(m):
    out, s = [], 0.0
    for i, v in enumerate(m, 1):
        s += v
        out.append(s / i)
    return out


# ------------------------------------------------------------------ exp/exp_fsnet.py
class Exp_TS2VecSupervised(object):
    def __init__(self, args):
        self.args = args
        self.online = args.online_learning
        self.n_inner = args.n_inner
        self.model = net(args)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=args.learning_rate)

    def _select_criterion(self):
        return nn.MSELoss()

    def _process_one_batch(self, batch_x, batch_y, batch_x_mark, batch_y_mark, mode='train'):
        if mode == 'test' and self.online != 'none':
            return self._ol_one_batch(batch_x, batch_y, batch_x_mark, batch_y_mark)
        x = torch.cat([batch_x.float(), batch_x_mark.float()], dim=-1)
        outputs = self.model(x)
        return outputs, batch_y.float().reshape(batch_y.size(0), -1)

    def _ol_one_batch(self, batch_x, batch_y, batch_x_mark, batch_y_mark):
        true = batch_y.float().reshape(batch_y.size(0), -1)
        criterion = self._select_criterion()
        x = torch.cat([batch_x.float(), batch_x_mark.float()], dim=-1)
        for _ in range(self.n_inner):
            outputs = self.model(x)
            loss = criterion(outputs, true)
            loss.backward()
            self.opt.step()
            self.model.store_grad()
            self.opt.zero_grad()
        return outputs, true

    def vali(self, batches, criterion):
        self.model.eval()
        total_loss = []
        for batch in batches:
            pred, true = self._process_one_batch(*batch, mode='vali')
            total_loss.append(criterion(pred.detach().cpu(), true.detach().cpu()).item())
        self.model.train()
        return sum(total_loss) / len(total_loss)

    def test(self, batches):
        self.model.eval()
        preds, trues = [], []
        maes, mses = [], []
        start = time.time()
        for batch in batches:
            pred, true = self._process_one_batch(*batch, mode='test')
            preds.append(pred.detach().cpu())
            trues.append(true.detach().cpu())
            mae, mse = metric(pred.detach().cpu(), true.detach().cpu())
            maes.append(mae)
            mses.append(mse)
        MAE, MSE = cumavg(maes), cumavg(mses)
        return [MAE[-1], MSE[-1], time.time() - start], MAE, MSE, preds, trues


def get_args(**kw):
    args = argparse.Namespace(enc_in=3, c_out=3, mark_dims=4, seq_len=24, pred_len=4, batch_size=4,
                              learning_rate=1e-3, online_learning='full', n_inner=1)
    for k, v in kw.items():
        setattr(args, k, v)
    return args


def run(steps):
    torch.manual_seed(0)
    args = get_args()
    exp = Exp_TS2VecSupervised(args)
    metrics, MAE, MSE, preds, trues = exp.test(make_batches(steps, args))
    vali_loss = exp.vali(list(make_batches(2, args, seed=1)), nn.MSELoss())
    return {'exp': exp, 'metrics': metrics, 'mse_curve': MSE, 'vali_loss': vali_loss}


if __name__ == "__main__":
    run(10)
