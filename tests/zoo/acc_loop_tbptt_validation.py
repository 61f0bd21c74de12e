# Source: https://github.com/facebookarchive/loop/issues/57
# Shape: after the port from Variable(volatile=True) the validation pass builds a graph, and evaluate() adds the attached loss of every validation batch into `total` (loss.data[0] became loss), so the full forward graph of each validation batch - nothing ever backwards it - is kept until the epoch's average is taken.
# Verdict: leak
import argparse

import torch
import torch.nn as nn
import torch.nn.functional as F


def get_args(**kw):
    args = argparse.Namespace(vocabulary_size=20, output_size=12, hidden_size=24, K=3, noise=1,
                              attention_alignment=0.05, nspk=3, mem_size=5, seq_len=8, batch_size=4,
                              lr=1e-3, clip_grad=0.5, max_len=24, txt_len=10)
    vars(args).update(kw)
    return args


def make_batches(n, args=None, seed=0):
    args = args or get_args()
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        txt = torch.randint(0, args.vocabulary_size, (args.txt_len, args.batch_size), generator=g)
        feat = torch.randn(args.max_len, args.batch_size, args.output_size, generator=g)
        lengths = torch.full((args.batch_size,), args.max_len, dtype=torch.long)
        spkr = torch.randint(0, args.nspk, (args.batch_size, 1), generator=g)
        out.append((txt, (feat, lengths), spkr))
    return out


def TBPTTIter(txt, feat, spkr, seq_len):
    feat, lengths = feat
    for i, start in enumerate(range(0, feat.shape[0], seq_len)):
        chunk = feat[start:start + seq_len]
        yield txt, (chunk, torch.clamp(lengths - start, 0, chunk.shape[0])), spkr, i == 0


class MaskedMSE(nn.Module):
    def forward(self, input, target, lengths):
        max_len = input.size(0)
        mask = (torch.arange(max_len)[:, None] < lengths[None, :]).float().unsqueeze(2)
        loss = F.mse_loss(input * mask, target * mask, reduction='sum')
        return loss / mask.sum() / input.size(2)


class Encoder(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.lut_p = nn.Embedding(opt.vocabulary_size, opt.hidden_size, max_norm=1.0)
        self.lut_s = nn.Embedding(opt.nspk, opt.hidden_size, max_norm=1.0)

    def forward(self, input, speakers):
        return self.lut_p(input), self.lut_s(speakers).squeeze(1)


class GravesAttention(nn.Module):
    COEF = 0.3989422917366028

    def __init__(self, mem_elem, K, attention_alignment):
        super().__init__()
        self.K, self.attention_alignment, self.epsilon = K, attention_alignment, 1e-5
        self.N_a = nn.Sequential(nn.Linear(mem_elem, mem_elem // 10), nn.ReLU(), nn.Linear(mem_elem // 10, 3 * K))

    def forward(self, C, context, mu_tm1):
        gbk_t = self.N_a(C.reshape(C.size(0), -1)).view(C.size(0), 3, self.K)
        g_t = torch.softmax(gbk_t[:, 0], dim=1) + self.epsilon
        sig_t = torch.exp(gbk_t[:, 1]) + self.epsilon
        mu_t = mu_tm1 + self.attention_alignment * torch.exp(gbk_t[:, 2])
        j = torch.arange(context.size(1)).float()[None, None, :]
        phi_t = g_t[:, :, None] * torch.exp(-0.5 * sig_t[:, :, None] * (mu_t[:, :, None] - j) ** 2)
        alpha_t = self.COEF * torch.sum(phi_t, 1, keepdim=True)
        c_t = torch.bmm(alpha_t, context).squeeze(1)
        return c_t, mu_t, alpha_t


class Decoder(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.K, self.hidden_size, self.output_size = opt.K, opt.hidden_size, opt.output_size
        self.mem_size = opt.mem_size
        self.mem_feat_size = opt.output_size + opt.hidden_size
        self.mem_elem = self.mem_size * self.mem_feat_size
        self.attn = GravesAttention(self.mem_elem, self.K, opt.attention_alignment)
        self.N_o = nn.Sequential(nn.Linear(self.mem_elem, self.mem_elem // 10), nn.ReLU(),
                                 nn.Linear(self.mem_elem // 10, self.hidden_size))
        self.output = nn.Linear(self.hidden_size, self.output_size)
        self.N_u = nn.Sequential(nn.Linear(self.mem_elem, self.mem_elem // 10), nn.ReLU(),
                                 nn.Linear(self.mem_elem // 10, self.mem_feat_size))
        self.F_u = nn.Linear(self.hidden_size, self.hidden_size)
        self.F_o = nn.Linear(self.hidden_size, self.hidden_size)

    def init_buffer(self, ident, start=True):
        batch_size = ident.size(0)
        if start:
            self.mu_t = ident.new_zeros(batch_size, self.K)
            self.S_t = ident.new_zeros(batch_size, self.mem_feat_size, self.mem_size)
            self.S_t[:, :self.hidden_size, :] = ident.unsqueeze(2).expand(-1, -1, self.mem_size)
        else:
            # truncated BPTT: keep the buffer contents, cut the history
            self.mu_t = self.mu_t.detach()
            self.S_t = self.S_t.detach()

    def update_buffer(self, S_tm1, c_t, o_tm1, ident):
        idt = torch.tanh(self.F_u(ident))
        z_t = torch.cat([c_t + idt, o_tm1.squeeze(0) / 30], 1).unsqueeze(2)
        Sp = torch.cat([z_t, S_tm1[:, :, :-1]], 2)
        u = self.N_u(Sp.reshape(Sp.size(0), -1))
        u = torch.cat([u[:, :idt.size(1)] + idt, u[:, idt.size(1):]], 1).unsqueeze(2)
        return torch.cat([u, S_tm1[:, :, :-1]], 2)

    def forward(self, x, ident, context, start=True):
        out = []
        self.init_buffer(ident, start)
        for o_tm1 in torch.split(x, 1):
            c_t, mu_t, _ = self.attn(self.S_t, context.transpose(0, 1), self.mu_t)
            self.S_t = self.update_buffer(self.S_t, c_t, o_tm1, ident)
            self.mu_t = mu_t
            o_t = self.output(self.N_o(self.S_t.reshape(self.S_t.size(0), -1)) + self.F_o(ident))
            out.append(o_t)
        return torch.stack(out)


class Loop(nn.Module):
    def __init__(self, opt):
        super().__init__()
        self.encoder = Encoder(opt)
        self.decoder = Decoder(opt)
        self.noise = opt.noise

    def init_input(self, tgt, start):
        if start:
            self.x_tm1 = tgt.new_zeros(1, tgt.size(1), tgt.size(2))
        inp = torch.cat([self.x_tm1, tgt[:-1].detach()]) if tgt.size(0) > 1 else self.x_tm1
        if self.noise > 0 and self.training:
            inp = inp + torch.randn_like(inp) * self.noise
        self.x_tm1 = tgt[-1].detach().unsqueeze(0)
        return inp

    def forward(self, src, tgt, start=True):
        x = self.init_input(tgt, start)
        context, ident = self.encoder(src[0], src[1])
        return self.decoder(x, ident, context, start)


def train(model, criterion, optimizer, loader, args, train_losses):
    total = 0
    model.train()
    for full_txt, full_feat, spkr in loader:
        batch_total, n_chunks = 0, 0
        for txt, feat, spkr_, start in TBPTTIter(full_txt, full_feat, spkr, args.seq_len):
            if start:
                optimizer.zero_grad()
            output = model([txt, spkr_], feat[0], start)
            loss = criterion(output, feat[0], feat[1])
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad)
            optimizer.step()
            batch_total += loss.item()
            n_chunks += 1
        total += batch_total / n_chunks
    avg = total / len(loader)
    train_losses.append(avg)
    return avg


def evaluate(model, criterion, loader, eval_losses):
    total = 0
    model.eval()
    for txt, feat, spkr in loader:
        output = model([txt, spkr], feat[0])
        loss = criterion(output, feat[0], feat[1])
        total += loss  # TLK101
    avg = total / len(loader)
    eval_losses.append(float(avg))
    return avg


def run(steps):
    torch.manual_seed(0)
    args = get_args()
    model = Loop(args)
    criterion = MaskedMSE()
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    train_losses, eval_losses = [], []
    train(model, criterion, optimizer, make_batches(2, args), args, train_losses)
    eval_loss = evaluate(model, criterion, make_batches(steps, args, seed=1), eval_losses)
    return {"model": model, "train_losses": train_losses, "eval_losses": eval_losses, "eval_loss": eval_loss}


if __name__ == "__main__":
    run(10)
