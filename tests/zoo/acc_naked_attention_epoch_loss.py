# Source: https://github.com/jostmey/NakedAttention/issues/1
# Shape: train_one_epoch adds the graph-attached batch loss into e_train every batch, so every batch's self-attention graph stays alive until the epoch ends.
# Verdict: leak
import torch


class SelfAttentionModel(torch.nn.Module):
    def __init__(self, num_steps, num_channels, num_outputs):
        super().__init__()
        scale = num_channels ** 0.5
        self.K = torch.nn.Parameter((2.0 * torch.rand(num_channels, num_channels) - 1.0) / scale)
        self.Q = torch.nn.Parameter((2.0 * torch.rand(num_channels, num_channels) - 1.0) / scale)
        self.V = torch.nn.Parameter((2.0 * torch.rand(num_channels, num_channels) - 1.0) / scale)
        self.softmax = torch.nn.Softmax(dim=2)
        self.out = torch.nn.Linear(num_steps * num_channels, num_outputs)

    def forward(self, x):
        batch_size, num_steps, num_channels = x.shape
        x_k = torch.matmul(x, self.K)
        x_q = torch.matmul(x, self.Q)
        x_v = torch.matmul(x, self.V)
        w = self.softmax(torch.matmul(x_q, x_k.transpose(1, 2)) / num_channels ** 0.5)
        y = torch.matmul(w, x_v)
        return self.out(y.reshape(batch_size, num_steps * num_channels))


def accuracy(ps, ys):
    return (ps.argmax(dim=1) == ys).float().mean()


class Trainer:
    def __init__(self, model, lr=0.01):
        self.model = model
        self.probability = torch.nn.Softmax(dim=1)
        self.loss = torch.nn.CrossEntropyLoss()
        self.optimizer = torch.optim.Adam(model.parameters(), lr=lr)
        self.i_better = -1
        self.e_better = 1.0e8
        self.state_better = {}

    def train_one_epoch(self, loader, probe=None):
        self.model.train()
        e_train = 0.0
        a_train = 0.0
        for i, (xs_batch, ys_batch) in enumerate(loader):
            ls_batch = self.model(xs_batch)
            ps_batch = self.probability(ls_batch)
            e_batch = self.loss(ls_batch, ys_batch)
            a_batch = accuracy(ps_batch, ys_batch)
            self.optimizer.zero_grad()
            e_batch.backward()
            self.optimizer.step()
            e_train += e_batch / len(loader)  # TLK101
            a_train += a_batch / len(loader)
            if probe is not None:
                probe(i)
        return e_train, a_train

    def validate(self, epoch, xs_val, ys_val):
        self.model.eval()
        with torch.no_grad():
            ls_val = self.model(xs_val)
            e_val = self.loss(ls_val, ys_val)
            a_val = accuracy(self.probability(ls_val), ys_val)
            if e_val < self.e_better:  # early stopping bookkeeping
                self.i_better = epoch
                self.e_better = e_val
                self.state_better = {k: v.clone() for k, v in self.model.state_dict().items()}
        return e_val, a_val


def _make_split(g, n, num_steps=12, num_channels=4, num_outputs=3):
    proj = torch.linspace(-1.0, 1.0, num_steps * num_channels).reshape(num_steps, num_channels)
    out = []
    for _ in range(n):
        xs = torch.randn(16, num_steps, num_channels, generator=g)
        score = (xs * proj).sum(dim=(1, 2))
        ys = torch.bucketize(score, torch.tensor([-2.0, 2.0]))
        out.append((xs, ys))
    return out


def make_batches(n):
    g = torch.Generator().manual_seed(46525)
    return _make_split(g, n)


def run(batches, probe=None):
    torch.manual_seed(0)
    model = SelfAttentionModel(num_steps=12, num_channels=4, num_outputs=3)
    trainer = Trainer(model, lr=0.03)
    (xs_val, ys_val), = _make_split(torch.Generator().manual_seed(7), 1)
    e_train, a_train = trainer.train_one_epoch(batches, probe=probe)
    e_val, a_val = trainer.validate(0, xs_val, ys_val)
    return {
        "e_train": float(e_train) / 0.693,
        "a_train": 100.0 * float(a_train),
        "e_val": float(e_val) / 0.693,
        "a_val": 100.0 * float(a_val),
    }


if __name__ == "__main__":
    print(run(make_batches(5)))
