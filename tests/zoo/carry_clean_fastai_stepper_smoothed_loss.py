# Source: https://github.com/fastai/fastai/blob/004f6761d5af9730cf4d02bbca4a09d9ab127247/old/fastai/model.py
# Shape: fit() keeps an exponentially smoothed, debiased training loss across every batch, but Stepper.step returns torch_item(raw_loss.data), so avg_loss is a plain float and no graph survives a step.
# Verdict: clean
import collections

import torch
import torch.nn as nn
import torch.nn.functional as F


def torch_item(x): return x.item() if hasattr(x, 'item') else x[0]


class Stepper():
    def __init__(self, m, opt, crit, clip=0, reg_fn=None):
        self.m, self.opt, self.crit, self.clip, self.reg_fn = m, opt, crit, clip, reg_fn
        self.reset(True)

    def reset(self, train=True):
        if train: self.m.train()
        else: self.m.eval()

    def step(self, xs, y, epoch):
        xtra = []
        output = self.m(*xs)
        if isinstance(output, tuple): output, *xtra = output
        self.opt.zero_grad()
        loss = raw_loss = self.crit(output, y)
        if self.reg_fn: loss = self.reg_fn(output, xtra, raw_loss)
        loss.backward()
        if self.clip:   # Gradient clipping
            nn.utils.clip_grad_norm_(self.m.parameters(), self.clip)
        self.opt.step()
        return torch_item(raw_loss.data)

    def evaluate(self, xs, y):
        preds = self.m(*xs)
        if isinstance(preds, tuple): preds = preds[0]
        return preds, self.crit(preds, y)


class MixedInputModel(nn.Module):
    """fastai's structured-data model: embeddings for categorical columns + continuous columns."""

    def __init__(self, emb_szs, n_cont, emb_drop, out_sz, szs, drops):
        super().__init__()
        self.embs = nn.ModuleList([nn.Embedding(c, s) for c, s in emb_szs])
        n_emb = sum(s for _, s in emb_szs)
        self.n_emb, self.n_cont = n_emb, n_cont
        szs = [n_emb + n_cont] + szs
        self.lins = nn.ModuleList([nn.Linear(szs[i], szs[i + 1]) for i in range(len(szs) - 1)])
        self.bns = nn.ModuleList([nn.BatchNorm1d(sz) for sz in szs[1:]])
        self.outp = nn.Linear(szs[-1], out_sz)
        self.emb_drop = nn.Dropout(emb_drop)
        self.drops = nn.ModuleList([nn.Dropout(drop) for drop in drops])
        self.bn = nn.BatchNorm1d(n_cont)

    def forward(self, x_cat, x_cont):
        x = torch.cat([e(x_cat[:, i]) for i, e in enumerate(self.embs)], 1)
        x = self.emb_drop(x)
        x = torch.cat([x, self.bn(x_cont)], 1)
        for l, d, b in zip(self.lins, self.drops, self.bns):
            x = F.relu(l(x))
            x = b(x)
            x = d(x)
        return self.outp(x)


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, bs=64):
    g = torch.Generator().manual_seed(seed)
    x_cat = torch.stack([torch.randint(0, c, (bs,), generator=g) for c in (7, 12, 31)], 1)
    x_cont = torch.randn(bs, 5, generator=g)
    y = (x_cont[:, :1] * 2 + (x_cat[:, :1] % 3).float() + 0.1 * torch.randn(bs, 1, generator=g))
    return x_cat, x_cont, y


def validate(stepper, dl):
    batch_cnts, loss = [], []
    stepper.reset(False)
    with torch.no_grad():
        for (*x, y) in dl:
            preds, l = stepper.evaluate(x, y)
            batch_cnts.append(len(y))
            loss.append(l.item())
    return [sum(l * c for l, c in zip(loss, batch_cnts)) / sum(batch_cnts)]


def fit(model, trn_dl, val_dl, n_epochs, opt, crit, callbacks=None):
    avg_mom = 0.98
    batch_num, avg_loss = 0, 0.
    callbacks = callbacks or []
    ep_vals = collections.OrderedDict()
    model_stepper = Stepper(model, opt, crit, clip=0.5)
    vals = []
    for epoch in range(n_epochs):
        model_stepper.reset(True)
        for (*x, y) in trn_dl:
            batch_num += 1
            loss = model_stepper.step(x, y, epoch)
            avg_loss = avg_loss * avg_mom + loss * (1 - avg_mom)
            debias_loss = avg_loss / (1 - avg_mom ** batch_num)
            stop = False
            for cb in callbacks: stop = stop or cb(debias_loss)
            if stop: return vals
        vals = validate(model_stepper, val_dl)
        ep_vals[epoch] = [round(debias_loss, 6)] + [round(v, 6) for v in vals]
    return vals, ep_vals


def run(batches):
    model = MixedInputModel([(7, 4), (12, 6), (31, 8)], n_cont=5, emb_drop=0.04, out_sz=1,
                            szs=[64, 32], drops=[0.01, 0.1])
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    trn_dl = (load_batch(s) for s in batches)
    val_dl = [load_batch(10_000 + i) for i in range(2)]
    return fit(model, trn_dl, val_dl, 1, opt, F.mse_loss)
