# Source: https://github.com/salesforce/MoPro/blob/1ddea47720083bc27429f79f2f24f279986001cf/model.py
# Shape: in this single-GPU port the features are no longer passed through the no-grad concat_all_gather, so _update_prototypes blends the attached encoder features into the prototypes buffer; the buffer is carried to the next batch and re-normalised, so its graph chains over every step.
# Verdict: leak
from types import SimpleNamespace

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=32, width=64, num_class=10, low_dim=32):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(in_dim, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU())
        self.classifier = nn.Linear(width, num_class)
        self.head = nn.Sequential(nn.Linear(width, width), nn.ReLU(), nn.Linear(width, low_dim))

    def forward(self, x):
        feat = self.backbone(x)
        out = self.classifier(feat)
        q = F.normalize(self.head(feat), dim=1)
        return out, q


class MoPro(nn.Module):
    def __init__(self, base_encoder, args):
        super().__init__()
        self.encoder_q = base_encoder(num_class=args.num_class, low_dim=args.low_dim)
        self.encoder_k = base_encoder(num_class=args.num_class, low_dim=args.low_dim)
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data.copy_(param_q.data)
            param_k.requires_grad = False
        self.register_buffer("queue", F.normalize(torch.randn(args.low_dim, args.moco_queue), dim=0))
        self.register_buffer("queue_ptr", torch.zeros(1, dtype=torch.long))
        self.register_buffer("prototypes", torch.zeros(args.num_class, args.low_dim))

    @torch.no_grad()
    def _momentum_update_key_encoder(self, args):
        for param_q, param_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            param_k.data = param_k.data * args.moco_m + param_q.data * (1. - args.moco_m)

    @torch.no_grad()
    def _dequeue_and_enqueue(self, keys, args):
        batch_size = keys.shape[0]
        ptr = int(self.queue_ptr)
        self.queue[:, ptr:ptr + batch_size] = keys.T
        self.queue_ptr[0] = (ptr + batch_size) % args.moco_queue

    def _update_prototypes(self, features, targets, args):
        # update momentum prototypes with original labels
        for feat, label in zip(features, targets):
            self.prototypes[label] = self.prototypes[label] * args.proto_m + (1 - args.proto_m) * feat  # TLK103
        self.prototypes = F.normalize(self.prototypes, p=2, dim=1)

    def forward(self, batch, args, is_proto=False):
        img, target, img_aug = batch
        output, q = self.encoder_q(img)
        with torch.no_grad():
            self._momentum_update_key_encoder(args)
            _, k = self.encoder_k(img_aug)

        l_pos = torch.einsum("nc,nc->n", [q, k]).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", [q, self.queue.clone().detach()])
        logits = torch.cat([l_pos, l_neg], dim=1) / args.temperature
        inst_labels = torch.zeros(logits.shape[0], dtype=torch.long)
        self._dequeue_and_enqueue(k, args)

        if is_proto:
            prototypes = self.prototypes.clone().detach()
            logits_proto = torch.mm(q, prototypes.t()) / args.temperature
        else:
            logits_proto = 0

        # single process: no all_gather, use this rank's features and labels directly
        targets = target
        features = q
        self._update_prototypes(features, targets, args)
        return output, target, logits, inst_labels, logits_proto


def train(train_loader, model, criterion, optimizer, epoch, args):
    model.train()
    acc_inst = []
    for batch in train_loader:
        is_proto = epoch > 0 or args.start_proto
        cls_out, target, logits, inst_labels, logits_proto = model(batch, args, is_proto=is_proto)
        loss_cls = criterion(cls_out, target)
        loss_inst = criterion(logits, inst_labels)
        loss = loss_cls + args.w_inst * loss_inst
        if is_proto:
            loss_proto = criterion(logits_proto, target)
            loss = loss + args.w_proto * loss_proto
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        acc_inst.append((logits.argmax(1) == inst_labels).float().mean().item())
    return sum(acc_inst) / max(len(acc_inst), 1)


def make_batches(n):
    return list(range(n))


def data_loader(seeds, in_dim=32, num_class=10, bs=16):
    for seed in seeds:
        g = torch.Generator().manual_seed(seed)
        img = torch.randn(bs, in_dim, generator=g)
        yield img, torch.randint(0, num_class, (bs,), generator=g), img + 0.1 * torch.randn(bs, in_dim, generator=g)


def run(batches):
    torch.manual_seed(0)
    args = SimpleNamespace(num_class=10, low_dim=32, moco_queue=128, moco_m=0.999, proto_m=0.999,
                           temperature=0.1, w_inst=1.0, w_proto=1.0, start_proto=True)
    model = MoPro(Encoder, args)
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=1e-4)
    return train(data_loader(batches), model, criterion, optimizer, 0, args)


if __name__ == "__main__":
    print(run(make_batches(4)))
