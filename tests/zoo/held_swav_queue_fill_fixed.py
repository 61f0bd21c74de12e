# Source: https://github.com/facebookresearch/swav/blob/main/main_swav.py
# Shape: as upstream, the queue is refilled inside the torch.no_grad() block; the embeddings written there are still attached tensors, but a no-grad in-place copy records nothing, so the queue stays a plain data buffer.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

NMB_CROPS = [2]
CROPS_FOR_ASSIGN = [0, 1]
FEAT_DIM = 16
NMB_PROTOTYPES = 12
QUEUE_LENGTH = 64
BATCH = 8
IN_DIM = 20


class SwAVNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(IN_DIM, 32), nn.BatchNorm1d(32), nn.ReLU())
        self.projection_head = nn.Sequential(nn.Linear(32, 32), nn.ReLU(), nn.Linear(32, FEAT_DIM))
        self.prototypes = nn.Linear(FEAT_DIM, NMB_PROTOTYPES, bias=False)

    def forward_head(self, x):
        x = self.projection_head(x)
        x = F.normalize(x, dim=1, p=2)
        return x, self.prototypes(x)

    def forward(self, inputs):
        output = self.backbone(torch.cat(inputs))
        return self.forward_head(output)


@torch.no_grad()
def distributed_sinkhorn(out, epsilon=0.05, sinkhorn_iterations=3):
    Q = torch.exp(out / epsilon).t()
    B = Q.shape[1]
    K = Q.shape[0]
    Q /= torch.sum(Q)
    for it in range(sinkhorn_iterations):
        Q /= torch.sum(Q, dim=1, keepdim=True)
        Q /= K
        Q /= torch.sum(Q, dim=0, keepdim=True)
        Q /= B
    Q *= B
    return Q.t()


def make_batches(n):
    g = torch.Generator().manual_seed(21)
    batches = []
    for _ in range(n):
        base = torch.randn(BATCH, IN_DIM, generator=g)
        views = [base + 0.1 * torch.randn(BATCH, IN_DIM, generator=g) for _ in range(sum(NMB_CROPS))]
        batches.append(views)
    return batches


def train(train_loader, model, optimizer, queue, temperature=0.1, freeze_prototypes_niters=2, probe=None):
    model.train()
    use_the_queue = False
    losses = []
    for it, inputs in enumerate(train_loader):
        # normalize the prototypes
        with torch.no_grad():
            w = model.prototypes.weight.data.clone()
            w = F.normalize(w, dim=1, p=2)
            model.prototypes.weight.copy_(w)

        # ============ multi-res forward passes ... ============
        embedding, output = model(inputs)
        bs = inputs[0].size(0)

        # ============ swav loss ... ============
        loss = 0
        for i, crop_id in enumerate(CROPS_FOR_ASSIGN):
            with torch.no_grad():
                out = output[bs * crop_id: bs * (crop_id + 1)].detach()

                # time to use the queue
                if queue is not None:
                    if use_the_queue or not torch.all(queue[i, -1, :] == 0):
                        use_the_queue = True
                        out = torch.cat((torch.mm(
                            queue[i],
                            model.prototypes.weight.t()
                        ), out))

                    # fill the queue
                    queue[i, bs:] = queue[i, :-bs].clone()
                    queue[i, :bs] = embedding[crop_id * bs: (crop_id + 1) * bs]

                # get assignments
                q = distributed_sinkhorn(out)[-bs:]

            # cluster assignment prediction
            subloss = 0
            for v in range(sum(NMB_CROPS)):
                if v == crop_id:
                    continue
                x = output[bs * v: bs * (v + 1)] / temperature
                subloss -= torch.mean(torch.sum(q * F.log_softmax(x, dim=1), dim=1))
            loss += subloss / (sum(NMB_CROPS) - 1)
        loss /= len(CROPS_FOR_ASSIGN)

        # ============ backward and optim step ... ============
        optimizer.zero_grad()
        loss.backward()
        # cancel gradients for the prototypes
        if it < freeze_prototypes_niters:
            for name, p in model.named_parameters():
                if "prototypes" in name:
                    p.grad = None
        optimizer.step()
        losses.append(loss.item())
        if probe is not None:
            probe()
    return losses


def run(batches, probe=None):
    torch.manual_seed(0)
    model = SwAVNet()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    queue = torch.zeros(len(CROPS_FOR_ASSIGN), QUEUE_LENGTH, FEAT_DIM)
    losses = train(batches, model, optimizer, queue, probe=probe)
    return {"loss": losses[-1], "queue_norm": float(queue.norm())}


if __name__ == "__main__":
    print(run(make_batches(5)))
