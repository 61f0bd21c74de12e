# Source: https://github.com/statswp/pythonProject/blob/c983bdfc32a6eabbbca8e9fdb33a76ee13f1aba2/models/base.py
# Shape: BaseModel.fit() keeps per-batch losses and TensorBoard scalars only as batch_loss.item(), and evaluate() collects predictions and losses under torch.no_grad(), so nothing attached outlives a batch.
# Verdict: clean
import torch
from torch import nn

N_FIELDS = 6
VOCAB = 100
EMBED_DIM = 16
BATCH = 64

_GEN = torch.Generator().manual_seed(42)
X_ALL = torch.cat([torch.randint(0, VOCAB, (512, N_FIELDS), generator=_GEN).float(),
                   torch.randn(512, 4, generator=_GEN)], dim=1)
Y_ALL = (torch.rand(512, generator=_GEN) < 0.35).float()


class SummaryWriter:
    """Minimal stand-in for torch.utils.tensorboard.SummaryWriter."""

    def __init__(self, log_dir):
        self.log_dir = log_dir
        self.events = []

    def add_scalar(self, tag, scalar_value, global_step):
        self.events.append((tag, float(scalar_value), global_step))


class BinaryAUROC:
    """torchmetrics-like AUROC: accumulates detached predictions."""

    def __init__(self):
        self.preds, self.target = [], []

    def __call__(self, preds, target):
        self.preds.append(preds.detach())
        self.target.append(target.detach())

    def compute(self):
        p, t = torch.cat(self.preds), torch.cat(self.target)
        order = torch.argsort(p, descending=True)
        t = t[order]
        tp, fp = torch.cumsum(t, 0), torch.cumsum(1 - t, 0)
        tpr, fpr = tp / t.sum().clamp(min=1), fp / (1 - t).sum().clamp(min=1)
        return torch.trapz(tpr, fpr)


class BaseModel(nn.Module):
    def __init__(self, name="BaseModel"):
        super().__init__()
        self.name = name
        self.embed_dict = nn.ModuleDict({"f%d" % i: nn.Embedding(VOCAB, EMBED_DIM) for i in range(N_FIELDS)})
        self.optimizer = None
        self.loss_fn = None
        self.summary = None

    def embed(self, x):
        sparse = [self.embed_dict["f%d" % i](x[:, i].long()) for i in range(N_FIELDS)]
        return torch.stack(sparse, dim=1), x[:, N_FIELDS:]

    def compile(self, optimizer, loss_fn, metrics=None):
        self.optimizer = optimizer
        self.loss_fn = loss_fn
        self.metrics = metrics

    def fit(self, dataloader, validate_dataloader=None, epochs=1, log_dir=None, log_interval=100):
        loss_fn = self.loss_fn
        optim = self.optimizer
        if log_dir:
            self.summary = SummaryWriter(log_dir + "/" + self.name)
        global_step = 0
        history = []
        for epoch in range(epochs):
            model = self.train()
            epoch_loss = []
            for step, (x, y_true) in enumerate(dataloader):
                y_pred = model(x.float())
                optim.zero_grad()
                batch_loss = loss_fn(y_pred.squeeze(), y_true.float())
                batch_loss.backward()
                optim.step()
                epoch_loss.append(batch_loss.item())
                if log_dir and global_step % log_interval == 0:
                    self.summary.add_scalar("Loss/train", batch_loss.item(), global_step)
                global_step += 1
            if validate_dataloader:
                eval_metric = self.evaluate(validate_dataloader)
                if log_dir:
                    self.summary.add_scalar("Loss/test", eval_metric["eval_loss"], global_step)
                    self.summary.add_scalar("AUC/test", eval_metric["eval_auc"], global_step)
            history.append(sum(epoch_loss) / max(len(epoch_loss), 1))
        return history

    def evaluate(self, dataloader):
        model = self.eval()
        auc_metric = BinaryAUROC()
        loss = []
        with torch.no_grad():
            for x, y in dataloader:
                y_ = model(x.float()).squeeze()
                cur_loss = self.loss_fn(y_, y.float())
                loss.append(cur_loss.item())
                auc_metric(y_, y)
        return {"eval_loss": sum(loss) / len(loss), "eval_auc": auc_metric.compute()}


class DeepFM(BaseModel):
    def __init__(self, deep_units=(64, 32)):
        super().__init__(name="DeepFM")
        in_dim = N_FIELDS * EMBED_DIM + 4
        layers = []
        for u in deep_units:
            layers += [nn.Linear(in_dim, u), nn.BatchNorm1d(u), nn.ReLU()]
            in_dim = u
        layers.append(nn.Linear(in_dim, 1))
        self.dnn = nn.Sequential(*layers)
        self.linear = nn.Linear(4, 1)

    def forward(self, x):
        emb, dense = self.embed(x)
        fm = 0.5 * (emb.sum(1).pow(2) - emb.pow(2).sum(1)).sum(1, keepdim=True)
        deep = self.dnn(torch.cat([emb.flatten(1), dense], dim=1))
        return torch.sigmoid(self.linear(dense) + fm + deep)


class IndexLoader:
    def __init__(self, index_batches):
        self.index_batches = index_batches

    def __iter__(self):
        for idx in self.index_batches:
            yield X_ALL[idx], Y_ALL[idx]


def make_batches(n):
    torch.manual_seed(0)
    return [list(range((i * BATCH) % 448, (i * BATCH) % 448 + BATCH)) for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = DeepFM()
    model.compile(torch.optim.SGD(model.parameters(), lr=1e-3), torch.nn.BCELoss())
    val_loader = IndexLoader([list(range(448, 512))])
    history = model.fit(IndexLoader(batches), validate_dataloader=val_loader, epochs=1,
                        log_dir="/tmp/deepfm_logs", log_interval=100)
    return model, history
