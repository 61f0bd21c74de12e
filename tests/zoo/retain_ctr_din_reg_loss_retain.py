# Source: https://github.com/shenweichen/DeepCTR-Torch/issues/90
# Shape: add_regularization_loss() keeps self.reg_loss = self.reg_loss + reg_loss across batches, so every batch's embedding-regulariser graph is chained onto the model; fit() papers over the resulting double-backward error with retain_graph=True and the chain keeps all batches alive.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

N_FIELDS = 8
VOCAB = 200
EMBED_DIM = 16
BATCH = 64

_GEN = torch.Generator().manual_seed(2020)
SPARSE_IDS = torch.randint(0, VOCAB, (512, N_FIELDS), generator=_GEN)
LABELS = (torch.rand(512, generator=_GEN) < 0.3).float()


class DNN(nn.Module):
    def __init__(self, inputs_dim, hidden_units=(64, 32), dropout_rate=0.0):
        super().__init__()
        dims = [inputs_dim] + list(hidden_units)
        self.linears = nn.ModuleList([nn.Linear(dims[i], dims[i + 1]) for i in range(len(dims) - 1)])
        self.dropout = nn.Dropout(dropout_rate)

    def forward(self, x):
        for fc in self.linears:
            x = self.dropout(F.relu(fc(x)))
        return x


class BaseModel(nn.Module):
    def __init__(self, l2_reg_embedding=1e-5, l2_reg_dnn=0.0, seed=1024):
        super().__init__()
        torch.manual_seed(seed)
        self.embedding_dict = nn.ModuleDict(
            {"C%d" % i: nn.Embedding(VOCAB, EMBED_DIM) for i in range(N_FIELDS)})
        self.l2_reg_embedding = l2_reg_embedding
        self.reg_loss = torch.zeros((1,))
        self.aux_loss = torch.zeros((1,))

    def input_from_feature_columns(self, X):
        return [self.embedding_dict["C%d" % i](X[:, i]) for i in range(N_FIELDS)]

    def add_regularization_loss(self, weight_list, weight_decay, p=2):
        # mini-batch aware regularisation: only the embeddings looked up in this batch
        reg_loss = torch.zeros((1,))
        for w in weight_list:
            reg_loss = reg_loss + torch.sum(weight_decay * torch.abs(w) ** p)
        self.reg_loss = self.reg_loss + reg_loss

    def compile(self, optimizer, loss, metrics=None):
        self.optim = optimizer
        self.loss_func = loss
        self.metrics = metrics or {}

    def fit(self, batches, epochs=1, verbose=0):
        model = self.train()
        loss_func = self.loss_func
        optim = self.optim
        history = {"loss": [], "reg": []}
        for epoch in range(epochs):
            total_loss_epoch = 0.0
            for idx in batches:
                x = SPARSE_IDS[idx]
                y = LABELS[idx]
                y_pred, embeds = model(x)
                optim.zero_grad()
                loss = loss_func(y_pred.squeeze(-1), y, reduction="sum")
                self.add_regularization_loss(embeds, self.l2_reg_embedding)
                total_loss = loss + self.reg_loss + self.aux_loss
                total_loss_epoch += total_loss.item()
                total_loss.backward(retain_graph=True)  # TLK202
                optim.step()
            history["loss"].append(total_loss_epoch / max(len(batches), 1))
            history["reg"].append(float(self.reg_loss))
        return history


class DeepFM(BaseModel):
    def __init__(self, dnn_hidden_units=(64, 32), l2_reg_embedding=1e-5):
        super().__init__(l2_reg_embedding=l2_reg_embedding)
        self.dnn = DNN(N_FIELDS * EMBED_DIM, dnn_hidden_units)
        self.dnn_linear = nn.Linear(dnn_hidden_units[-1], 1, bias=False)

    def forward(self, X):
        sparse_embedding_list = self.input_from_feature_columns(X)
        emb = torch.stack(sparse_embedding_list, dim=1)            # B x F x E
        square_of_sum = emb.sum(dim=1).pow(2)
        sum_of_square = emb.pow(2).sum(dim=1)
        fm_logit = 0.5 * (square_of_sum - sum_of_square).sum(dim=1, keepdim=True)
        dnn_logit = self.dnn_linear(self.dnn(emb.flatten(1)))
        y_pred = torch.sigmoid(fm_logit + dnn_logit)
        return y_pred, sparse_embedding_list


def make_batches(n):
    torch.manual_seed(0)
    return [list(range((i * BATCH) % 512, (i * BATCH) % 512 + BATCH)) for i in range(n)]


def run(batches):
    model = DeepFM()
    model.compile(torch.optim.Adagrad(model.parameters(), lr=0.01), F.binary_cross_entropy)
    history = model.fit(batches, epochs=1)
    return model, history
