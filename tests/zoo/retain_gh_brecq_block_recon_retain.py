# Source: https://github.com/yhhhli/BRECQ/issues/12
# Shape: The block-reconstruction loop calls err.backward(retain_graph=True) although nothing backprops through that graph again, and the loss function keeps its total_loss tensors for the calibration log; together every iteration's quantized-block graph, with all its saved activations, stays alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

CH = 16
IMG = 8
N_CALI = 64
BATCH = 16


def make_batches(n_batches=N_CALI // BATCH, seed=0):
    """Calibration inputs for the block."""
    torch.manual_seed(seed)
    return [torch.randn(BATCH, CH, IMG, IMG) for _ in range(n_batches)]


def round_ste(x):
    return (x.round() - x).detach() + x


class AdaRoundQuantizer(nn.Module):
    """Learned rounding of a fixed-scale 4-bit weight quantizer."""

    def __init__(self, weight, n_bits=4, zeta=1.1, gamma=-0.1):
        super().__init__()
        self.n_levels = 2 ** n_bits
        self.delta = (weight.max() - weight.min()).item() / (self.n_levels - 1)
        self.zero_point = round(-weight.min().item() / self.delta)
        self.zeta, self.gamma = zeta, gamma
        self.soft_targets = True
        w_floor = torch.floor(weight / self.delta)
        rest = (weight / self.delta) - w_floor
        alpha = -torch.log((self.zeta - self.gamma) / (rest - self.gamma) - 1)
        self.alpha = nn.Parameter(alpha)

    def get_soft_targets(self):
        return torch.clamp(torch.sigmoid(self.alpha) * (self.zeta - self.gamma) + self.gamma, 0, 1)

    def forward(self, x):
        x_floor = torch.floor(x / self.delta)
        if self.soft_targets:
            x_int = x_floor + self.get_soft_targets()
        else:
            x_int = x_floor + (self.alpha >= 0).float()
        x_quant = torch.clamp(x_int + self.zero_point, 0, self.n_levels - 1)
        return (x_quant - self.zero_point) * self.delta


class QuantConv(nn.Module):
    def __init__(self, conv):
        super().__init__()
        self.register_buffer("org_weight", conv.weight.data.clone())
        self.bias = conv.bias.data.clone() if conv.bias is not None else None
        self.padding = conv.padding
        self.weight_quantizer = AdaRoundQuantizer(self.org_weight)

    def forward(self, x):
        return F.conv2d(x, self.weight_quantizer(self.org_weight), self.bias, padding=self.padding)


class QuantBlock(nn.Module):
    """conv-relu-conv + residual, the unit BRECQ reconstructs at once."""

    def __init__(self, fp_block):
        super().__init__()
        self.conv1 = QuantConv(fp_block[0])
        self.conv2 = QuantConv(fp_block[2])

    def forward(self, x):
        return F.relu(self.conv2(F.relu(self.conv1(x))) + x)


class LinearTempDecay:
    def __init__(self, t_max, rel_start_decay=0.2, start_b=20, end_b=2):
        self.t_max, self.start_decay = t_max, rel_start_decay * t_max
        self.start_b, self.end_b = start_b, end_b

    def __call__(self, t):
        if t < self.start_decay:
            return self.start_b
        rel_t = (t - self.start_decay) / (self.t_max - self.start_decay)
        return self.end_b + (self.start_b - self.end_b) * max(0.0, 1 - rel_t)


class LossFunction:
    def __init__(self, block, weight=0.01, max_count=2000, log_freq=500):
        self.block = block
        self.weight = weight
        self.temp_decay = LinearTempDecay(max_count)
        self.count = 0
        self.log_freq = log_freq
        self.records = []

    def __call__(self, pred, tgt):
        self.count += 1
        rec_loss = (pred - tgt).pow(2).sum(1).mean()
        b = self.temp_decay(self.count)
        round_loss = 0
        for module in self.block.modules():
            if isinstance(module, QuantConv):
                round_vals = module.weight_quantizer.get_soft_targets()
                round_loss += self.weight * (1 - ((round_vals - .5).abs() * 2).pow(b)).sum()
        total_loss = rec_loss + round_loss
        if self.count % self.log_freq == 0:
            self.records.append((self.count, total_loss, b))  # TLK102
            print('Total loss:\t{:.3f} (rec:{:.3f}, round:{:.3f})\tb={:.2f}\tcount={}'.format(
                float(total_loss), float(rec_loss), float(round_loss), b, self.count))
        return total_loss


def block_reconstruction(fp_block, qblock, cali_data, iters, log_freq):
    opt_params = [m.weight_quantizer.alpha for m in qblock.modules() if isinstance(m, QuantConv)]
    optimizer = torch.optim.Adam(opt_params, lr=1e-3)
    loss_func = LossFunction(qblock, max_count=iters, log_freq=log_freq)

    with torch.no_grad():
        cached_inps = torch.cat(cali_data)
        cached_outs = fp_block(cached_inps) + cached_inps
        cached_outs = F.relu(cached_outs)

    for i in range(iters):
        idx = torch.randperm(cached_inps.size(0))[:BATCH]
        cur_inp, cur_out = cached_inps[idx], cached_outs[idx]
        optimizer.zero_grad()
        out_quant = qblock(cur_inp)
        err = loss_func(out_quant, cur_out)
        err.backward(retain_graph=True)  # TLK201
        optimizer.step()

    for m in qblock.modules():
        if isinstance(m, QuantConv):
            m.weight_quantizer.soft_targets = False
    return loss_func


def run(steps):
    torch.manual_seed(0)
    fp_block = nn.Sequential(nn.Conv2d(CH, CH, 3, padding=1), nn.ReLU(), nn.Conv2d(CH, CH, 3, padding=1))
    qblock = QuantBlock(fp_block)
    loss_func = block_reconstruction(fp_block, qblock, make_batches(), iters=steps, log_freq=1)
    return {"qblock": qblock, "loss_func": loss_func}


if __name__ == "__main__":
    run(10)
