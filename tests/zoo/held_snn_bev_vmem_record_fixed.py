# Source: https://github.com/jeshraghian/snntorch/issues/394
# Shape: the per-channel membrane peaks stored in self.vmem_history are detached, so the epoch-end summary keeps only values and each batch's unrolled graph is freed after backward.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class ATan(torch.autograd.Function):
    @staticmethod
    def forward(ctx, mem, alpha=2.0):
        ctx.save_for_backward(mem)
        ctx.alpha = alpha
        return (mem > 0).float()

    @staticmethod
    def backward(ctx, grad_output):
        (mem,) = ctx.saved_tensors
        grad = ctx.alpha / 2 / (1 + (torch.pi / 2 * ctx.alpha * mem).pow(2)) * grad_output
        return grad, None


class Leaky(nn.Module):
    """Leaky integrate-and-fire neuron with hidden state kept on the module (snntorch init_hidden=True style)."""

    def __init__(self, beta, threshold=1.0, output=False):
        super().__init__()
        self.beta = beta
        self.threshold = threshold
        self.output = output
        self.mem = None

    def reset_mem(self):
        self.mem = None

    def forward(self, x):
        if self.mem is None:
            self.mem = torch.zeros_like(x)
        reset = (self.mem - self.threshold > 0).float().detach()
        self.mem = self.beta * self.mem + x - reset * self.threshold
        spk = ATan.apply(self.mem - self.threshold)
        if self.output:
            return spk, self.mem
        return spk


class SpikingNet(nn.Module):
    def __init__(self, n_channels_in=5, n_channels_kp=2, T=6, v_th=0.9, beta=0.85, bias=False):
        super().__init__()
        self.T = T
        self.c1 = nn.Conv2d(n_channels_in, 16, 3, padding=1, bias=bias)
        self.bn1 = nn.BatchNorm2d(16)
        self.sn1 = Leaky(beta=beta, threshold=v_th)
        self.enc = nn.Conv2d(16, 16, 3, padding=1, bias=bias)
        self.sn_enc = Leaky(beta=beta, threshold=v_th)
        self.head = nn.Conv2d(16, n_channels_kp, 1, bias=bias)
        self.head_kp = Leaky(beta=beta, threshold=v_th, output=True)

    def reset_states(self):
        for m in self.modules():
            if isinstance(m, Leaky):
                m.reset_mem()

    def forward(self, x_bev):
        self.reset_states()
        spk_rec, vmem_rec = [], []
        for t in range(self.T):
            x_spk_in = self.sn1(self.bn1(self.c1(x_bev)))
            x_spk_enc = self.sn_enc(self.enc(x_spk_in))
            kp_spk, kp_v = self.head_kp(self.head(x_spk_enc))
            spk_rec.append(kp_spk)
            vmem_rec.append(kp_v)
        spk_rec = torch.stack(spk_rec)
        vmem_rec = torch.stack(vmem_rec)
        return spk_rec, vmem_rec


class BEVKeypointTrainer(object):
    def __init__(self, snn, lr=1e-3):
        self.snn = snn
        self.optimizer = torch.optim.Adam(snn.parameters(), lr=lr)
        self.vmem_history = []
        self.epoch_losses = []

    def compute_loss(self, vmem_rec, kp_gt):
        kp_logits = vmem_rec.mean(0)
        loss_kp = F.binary_cross_entropy_with_logits(kp_logits, kp_gt)
        return loss_kp, kp_logits

    def train_step(self, x_bev, kp_gt):
        self.snn.train()
        self.optimizer.zero_grad()
        spk_rec, vmem_rec = self.snn(x_bev)
        loss, kp_logits = self.compute_loss(vmem_rec, kp_gt)
        loss.backward()
        self.optimizer.step()
        self.vmem_history.append(vmem_rec[-1].amax(dim=(2, 3)).detach())
        return loss.item()

    def dump_heatmaps(self):
        if not self.vmem_history:
            return 0.0
        return float(torch.stack(self.vmem_history).mean())


def make_batches(n):
    g = torch.Generator().manual_seed(394)
    return [(torch.rand(2, 5, 24, 24, generator=g), (torch.rand(2, 2, 24, 24, generator=g) > 0.9).float()) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    snn = SpikingNet()
    trainer = BEVKeypointTrainer(snn)
    running = 0.0
    for x_bev, kp_gt in batches:
        running += trainer.train_step(x_bev, kp_gt)
    trainer.epoch_losses.append(running / len(batches))
    trainer.dump_heatmaps()
    return trainer.epoch_losses[-1]


if __name__ == "__main__":
    print(run(make_batches(5)))
