# Source: https://github.com/CoinCheung/DenseCL/blob/4456f38a8147aaa5306b283768a73ecb7077a0a4/moco/builder.py
# Shape: looks like a leak (a global and a dense negative queue written every step, features stored on self), but the keys come from the frozen momentum encoder under torch.no_grad(), _dequeue_and_enqueue is @torch.no_grad(), and the queues are read through .clone().detach().
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class DenseEncoder(nn.Module):
    def __init__(self, num_classes=32, ch=16):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(3, ch, 3, padding=1), nn.ReLU(), nn.Conv2d(ch, ch, 3, padding=1), nn.ReLU())
        self.fc = nn.Linear(ch, num_classes)
        self.dense_head = nn.Conv2d(ch, num_classes, 1)

    def forward(self, x):
        feat = self.body(x)
        return self.fc(feat.mean((2, 3))), self.dense_head(feat), feat


class DenseCL(nn.Module):
    def __init__(self, base_model, dim=32, K=1024, m=0.999, T=0.2):
        super().__init__()
        self.K, self.m, self.T = K, m, T
        self.encoder_q = base_model(num_classes=dim)
        self.encoder_k = base_model(num_classes=dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_dense", F.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.last_dense_q = None

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * self.m + param_q.data * (1. - self.m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys, dense_keys):
        dense_keys = F.normalize(dense_keys.mean(dim=2), dim=1)
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        self.queue_dense[:, ptr:ptr + batch_size] = dense_keys.T
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def forward(self, im_q, im_k):
        q, dense_q, feat_q = self.encoder_q(im_q)
        q = F.normalize(q, dim=1)
        n, c, h, w = feat_q.size()
        dim_dense = dense_q.size(1)
        dense_q, feat_q = dense_q.view(n, dim_dense, -1), feat_q.view(n, c, -1)
        dense_q = F.normalize(dense_q, dim=1)

        with torch.no_grad():
            self._momentum_update_key_encoder()
            k, dense_k, feat_k = self.encoder_k(im_k)
            k = F.normalize(k, dim=1)
            dense_k, feat_k = dense_k.view(n, dim_dense, -1), feat_k.view(n, c, -1)
            dense_k_norm = F.normalize(dense_k, dim=1)
            feat_q_norm = F.normalize(feat_q, dim=1)
            feat_k_norm = F.normalize(feat_k, dim=1)
            cosine = torch.einsum('nca,ncb->nab', feat_q_norm, feat_k_norm)
            pos_idx = cosine.argmax(dim=-1)
            dense_k_norm = dense_k_norm.gather(2, pos_idx.unsqueeze(1).expand(-1, dim_dense, -1))

        l_pos = torch.einsum('nc,nc->n', [q, k]).unsqueeze(-1)
        l_neg = torch.einsum('nc,ck->nk', [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)

        d_pos = torch.einsum('ncm,ncm->nm', dense_q, dense_k_norm).unsqueeze(1)
        d_neg = torch.einsum('ncm,ck->nkm', dense_q, self.queue_dense.clone().detach())
        logits_dense = torch.cat([d_pos, d_neg], dim=1) / self.T
        labels_dense = torch.zeros((n, h * w), dtype=torch.long)

        self._dequeue_and_enqueue(k, dense_k)
        self.last_dense_q = dense_q.detach()  # kept for the similarity-map visualiser
        return logits, labels, logits_dense, labels_dense


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (16,), generator=g) for _ in range(n)]


def run(batches):
    model = DenseCL(DenseEncoder, dim=32, K=1024)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.03, momentum=0.9)
    images = torch.rand(256, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    loss_lambda = 0.5
    running = 0.0
    for idx in batches:
        x = images[idx]
        im_q, im_k = x + 0.05 * torch.randn_like(x), x.flip(3)
        output, target, output_dense, target_dense = model(im_q, im_k)
        loss_single = criterion(output, target)
        loss_dense = criterion(output_dense, target_dense)
        loss = loss_single * (1 - loss_lambda) + loss_dense * loss_lambda
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        running += loss.item()
    return running / len(batches)
