# Source: https://github.com/zihangdai/mos/blob/master/dynamiceval.py
# Shape: dynamic evaluation carries the LSTM hidden state from segment to segment without repackage_hidden(); retain_graph=True silences the "backward through the graph a second time" error, so the graph (and every backward) grows with each evaluated segment.
# Verdict: leak
import math

import torch
import torch.nn as nn


class Args:
    bptt = 5
    batch_size = 4
    lamb = 0.02
    epsilon = 0.001
    lr = 0.002
    ms = False
    max_batches = 4
    ntokens = 50
    emsize = 16
    nhid = 32


class RNNModel(nn.Module):
    def __init__(self, ntoken, ninp, nhid, nlayers=2):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.rnn = nn.LSTM(ninp, nhid, nlayers)
        self.decoder = nn.Linear(nhid, ntoken)
        self.nlayers, self.nhid = nlayers, nhid
        self.use_dropout = True

    def forward(self, input, hidden):
        emb = self.encoder(input)
        output, hidden = self.rnn(emb, hidden)
        logits = self.decoder(output)
        return torch.log_softmax(logits, dim=-1), hidden

    def init_hidden(self, bsz):
        weight = next(self.parameters())
        return (weight.new_zeros(self.nlayers, bsz, self.nhid), weight.new_zeros(self.nlayers, bsz, self.nhid))


def repackage_hidden(h):
    """Wraps hidden states in new Tensors, to detach them from their history."""
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


def batchify(data, bsz):
    nbatch = data.size(0) // bsz
    data = data.narrow(0, 0, nbatch * bsz)
    return data.view(bsz, -1).t().contiguous()


def get_batch(source, i, bptt):
    seq_len = min(bptt, len(source) - 1 - i)
    return source[i:i + seq_len], source[i + 1:i + 1 + seq_len].reshape(-1)


def gradstat(model, train_data, args):
    hidden = model.init_hidden(args.batch_size)
    batch, i = 0, 0
    for param in model.parameters():
        param.MS = 0 * param.data
    while i < train_data.size(0) - 1 - 1:
        model.train()
        data, targets = get_batch(train_data, i, args.bptt)
        hidden = repackage_hidden(hidden)
        model.zero_grad()
        log_prob, hidden = model(data, hidden)
        loss = nn.functional.nll_loss(log_prob.view(-1, log_prob.size(2)), targets)
        loss.backward()
        for param in model.parameters():
            param.MS = param.MS + param.grad.data * param.grad.data
        batch += 1
        i += args.bptt
        if args.max_batches > 0 and batch >= args.max_batches:
            break
    gsum = 0
    for param in model.parameters():
        param.MS = torch.sqrt(param.MS / batch) if args.ms else torch.sqrt(param.MS)
        gsum += torch.mean(param.MS)
    for param in model.parameters():
        param.decrate = param.MS / gsum


def evaluate(model, eval_data, args, n_segments):
    for param in model.parameters():
        param.decrate = param.decrate.clamp(max=1 / args.lamb)
        param.data0 = 1 * param.data
    total_loss = 0
    hidden = model.init_hidden(1)
    batch, i = 0, 0
    while i < eval_data.size(0) - 1 - 1 and batch < n_segments:
        model.train()
        model.use_dropout = False
        data, targets = get_batch(eval_data, i, args.bptt)
        model.zero_grad()
        log_prob, hidden = model(data, hidden)
        loss = nn.functional.nll_loss(log_prob.view(-1, log_prob.size(2)), targets)
        loss.backward(retain_graph=True)  # TLK202
        for param in model.parameters():
            dW = args.lamb * param.decrate * (param.data0 - param.data) - args.lr * param.grad.data / (param.MS + args.epsilon)
            param.data += dW
        total_loss += loss.data
        batch += 1
        i += args.bptt
    return math.exp(float(total_loss) / max(batch, 1)), hidden


def make_batches(n_tokens, ntokens=50, seed=1111):
    torch.manual_seed(seed)
    return torch.randint(0, ntokens, (n_tokens,))


def run(steps):
    args = Args()
    torch.manual_seed(1111)
    model = RNNModel(args.ntokens, args.emsize, args.nhid)
    train_data = batchify(make_batches(400, args.ntokens), args.batch_size)
    eval_data = batchify(make_batches(args.bptt * steps + 2, args.ntokens, seed=7), 1)
    gradstat(model, train_data, args)
    ppl, hidden = evaluate(model, eval_data, args, n_segments=steps)
    return model, hidden, ppl


if __name__ == "__main__":
    run(10)
