# Source: https://github.com/wgrathwohl/JEM/blob/7f0779a0541256a77c50c52971ecdb50a8ce2e66/train_wrn_ebm.py
# Shape: JEM training: the SGLD chain moves x_k through x_k.data with first-order autograd.grad, the persistent replay buffer gets final_samples = x_k.detach(), and the objective L is rebuilt from 0. each iteration and backwarded, so neither the buffer nor L carries a graph across iterations.
# Verdict: clean
import torch as t
import torch.nn as nn
import torch.nn.functional as F


class F_(nn.Module):
    """JEM's F: a classifier whose logsumexp is the (negative) energy."""

    def __init__(self, n_classes=10):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.LeakyReLU(0.2),
                               nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.LeakyReLU(0.2),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.energy_output = nn.Linear(32, 1)
        self.class_output = nn.Linear(32, n_classes)

    def forward(self, x, y=None):
        penult_z = self.f(x)
        return self.class_output(penult_z).logsumexp(1)

    def classify(self, x):
        penult_z = self.f(x)
        return self.class_output(penult_z).squeeze()


class args:
    n_classes = 10
    batch_size = 16
    buffer_size = 128
    reinit_freq = .05
    sgld_lr = 1.0
    sgld_std = 1e-2
    n_steps = 5
    p_x_weight = 1.
    p_y_given_x_weight = 1.
    lr = 1e-4
    print_every = 100
    im_sz = 8


def init_random(args, bs):
    return t.FloatTensor(bs, 3, args.im_sz, args.im_sz).uniform_(-1, 1)


def get_sample_q(args, device):
    def sample_p_0(replay_buffer, bs, y=None):
        if len(replay_buffer) == 0:
            return init_random(args, bs), []
        buffer_size = len(replay_buffer)
        inds = t.randint(0, buffer_size, (bs,))
        buffer_samples = replay_buffer[inds]
        random_samples = init_random(args, bs)
        choose_random = (t.rand(bs) < args.reinit_freq).float()[:, None, None, None]
        samples = choose_random * random_samples + (1 - choose_random) * buffer_samples
        return samples.to(device), inds

    def sample_q(f, replay_buffer, y=None, n_steps=args.n_steps):
        f.eval()
        bs = args.batch_size if y is None else y.size(0)
        init_sample, buffer_inds = sample_p_0(replay_buffer, bs=bs, y=y)
        x_k = t.autograd.Variable(init_sample, requires_grad=True)
        # sgld
        for k in range(n_steps):
            f_prime = t.autograd.grad(f(x_k, y=y).sum(), [x_k])[0]
            x_k.data += args.sgld_lr * f_prime + args.sgld_std * t.randn_like(x_k)
        f.train()
        final_samples = x_k.detach()
        # update replay buffer
        if len(replay_buffer) > 0:
            replay_buffer[buffer_inds] = final_samples.cpu()
        return final_samples
    return sample_q


def make_batches(n):
    t.manual_seed(0)
    return t.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    device = t.device('cpu')
    sample_q = get_sample_q(args, device)
    f = F_(args.n_classes).to(device)
    replay_buffer = init_random(args, args.buffer_size)
    optim = t.optim.Adam(f.parameters(), lr=args.lr, betas=[.9, .999])
    cur_iter = 0
    history = []
    for i, seed in enumerate(batches):
        g = t.Generator().manual_seed(seed)
        x_p_d = t.rand(args.batch_size, 3, args.im_sz, args.im_sz, generator=g) * 2 - 1
        x_lab = t.rand(args.batch_size, 3, args.im_sz, args.im_sz, generator=g) * 2 - 1
        y_lab = t.randint(0, args.n_classes, (args.batch_size,), generator=g)

        L = 0.
        if args.p_x_weight > 0:  # maximize log p(x)
            x_q = sample_q(f, replay_buffer)  # sample from log-sumexp
            fp_all = f(x_p_d)
            fq_all = f(x_q)
            fp = fp_all.mean()
            fq = fq_all.mean()
            l_p_x = -(fp - fq)
            if cur_iter % args.print_every == 0:
                msg = 'P(x) | {:>d} f(x_p_d)={:>14.9f} f(x_q)={:>14.9f} d={:>14.9f}'.format(i, fp, fq, fp - fq)
            L += args.p_x_weight * l_p_x

        if args.p_y_given_x_weight > 0:  # maximize log p(y | x)
            logits = f.classify(x_lab)
            l_p_y_given_x = nn.CrossEntropyLoss()(logits, y_lab)
            if cur_iter % args.print_every == 0:
                acc = (logits.max(1)[1] == y_lab).float().mean()
                msg = 'P(y|x) {:>d} loss={:>14.9f}, acc={:>14.9f}'.format(cur_iter, l_p_y_given_x.item(), acc.item())
            L += args.p_y_given_x_weight * l_p_y_given_x

        if L.abs().item() > 1e8:
            raise RuntimeError("diverged")

        optim.zero_grad()
        L.backward()
        optim.step()
        cur_iter += 1
        history.append(L.item())
    return replay_buffer, history
