"""MoCo: a query encoder, a momentum-updated key encoder and a queue of negative keys.

Single-process version: no all_gather and no batch shuffle. MoCoEndToEnd is the paper's
end-to-end ablation (keys from the query encoder, with gradient) kept on top of the queue."""
import torch
import torch.nn as nn


class MoCo(nn.Module):
    def __init__(self, base_encoder, dim=16, K=64, m=0.99, T=0.07):
        super().__init__()
        self.K = K
        self.m = m
        self.T = T
        self.encoder_q = base_encoder(num_classes=dim)
        self.encoder_k = base_encoder(num_classes=dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", nn.functional.normalize(torch.randn(dim, K), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))

    @torch.no_grad()
    def _momentum_update_key_encoder(self):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.mul_(self.m).add_(param_q, alpha=1.0 - self.m)

    def _dequeue_and_enqueue(self, keys):
        # callers pass keys that carry no gradient (see forward)
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        assert self.K % batch_size == 0
        self.queue[:, ptr:ptr + batch_size] = keys.T
        self.queue_ptr[0] = (ptr + batch_size) % self.K

    def contrast(self, q, k):
        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.shape[0], dtype=torch.long)
        return logits, labels

    def forward(self, im_q, im_k):
        q = nn.functional.normalize(self.encoder_q(im_q), dim=1)
        with torch.no_grad():
            self._momentum_update_key_encoder()
            k = nn.functional.normalize(self.encoder_k(im_k), dim=1)
        logits, labels = self.contrast(q, k)
        self._dequeue_and_enqueue(k)
        return logits, labels


class MoCoEndToEnd(MoCo):
    def forward(self, im_q, im_k):
        q = nn.functional.normalize(self.encoder_q(im_q), dim=1)
        k = nn.functional.normalize(self.encoder_q(im_k), dim=1)
        logits, labels = self.contrast(q, k)
        self._dequeue_and_enqueue(k)  # expect: TLK102
        return logits, labels
