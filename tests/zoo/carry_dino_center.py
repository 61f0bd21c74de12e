# Source: https://github.com/facebookresearch/dino/issues/269
# Shape: DINOLoss.update_center lost its @torch.no_grad() and the teacher copy was never frozen, so the EMA center carries each step's teacher forward graph into the next step.
# Verdict: leak
import copy
import torch
import torch.nn as nn
import torch.nn.functional as F


class DINOHead(nn.Module):
    def __init__(self, in_dim=48, out_dim=64, hidden_dim=64, bottleneck_dim=32):
        super().__init__()
        self.mlp = nn.Sequential(nn.Linear(in_dim, hidden_dim), nn.GELU(),
                                 nn.Linear(hidden_dim, bottleneck_dim))
        self.last_layer = nn.Linear(bottleneck_dim, out_dim, bias=False)

    def forward(self, x):
        x = self.mlp(x)
        x = F.normalize(x, dim=-1, p=2)
        return self.last_layer(x)


class MultiCropWrapper(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, crops):
        if not isinstance(crops, list):
            crops = [crops]
        output = self.backbone(torch.cat(crops).flatten(1))
        return self.head(output)


class DINOLoss(nn.Module):
    def __init__(self, out_dim=64, ncrops=4, teacher_temp=0.04, student_temp=0.1, center_momentum=0.9):
        super().__init__()
        self.student_temp = student_temp
        self.teacher_temp = teacher_temp
        self.center_momentum = center_momentum
        self.ncrops = ncrops
        self.register_buffer("center", torch.zeros(1, out_dim))

    def forward(self, student_output, teacher_output, epoch):
        student_out = student_output / self.student_temp
        student_out = student_out.chunk(self.ncrops)
        teacher_out = F.softmax((teacher_output - self.center) / self.teacher_temp, dim=-1)
        teacher_out = teacher_out.detach().chunk(2)

        total_loss = 0
        n_loss_terms = 0
        for iq, q in enumerate(teacher_out):
            for v in range(len(student_out)):
                if v == iq:
                    continue
                loss = torch.sum(-q * F.log_softmax(student_out[v], dim=-1), dim=-1)
                total_loss += loss.mean()
                n_loss_terms += 1
        total_loss /= n_loss_terms
        self.update_center(teacher_output)
        return total_loss

    def update_center(self, teacher_output):
        """Update center used for teacher output (single process, no all_reduce)."""
        batch_center = torch.sum(teacher_output, dim=0, keepdim=True)
        batch_center = batch_center / len(teacher_output)
        # ema update
        self.center = self.center * self.center_momentum + batch_center * (1 - self.center_momentum)  # TLK103


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (16,), generator=g) for _ in range(n)]


class DataAugmentationDINO:
    def __init__(self, local_crops_number=2):
        self.local_crops_number = local_crops_number

    def __call__(self, images):
        crops = [images + 0.02 * torch.randn_like(images) for _ in range(2)]
        for _ in range(self.local_crops_number):
            crops.append(images * (0.5 + 0.5 * torch.rand_like(images)))
        return crops


def train_one_epoch(student, teacher, dino_loss, data, batches, optimizer, momentum_teacher, epoch):
    metric_log = []
    transform = DataAugmentationDINO()
    for it, idx in enumerate(batches):
        images = transform(data[idx])
        teacher_output = teacher(images[:2])  # only the 2 global views pass through the teacher
        student_output = student(images)
        loss = dino_loss(student_output, teacher_output, epoch)

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        # EMA update for the teacher
        with torch.no_grad():
            for param_q, param_k in zip(student.parameters(), teacher.parameters()):
                param_k.data.mul_(momentum_teacher).add_((1 - momentum_teacher) * param_q.detach().data)
        metric_log.append(loss.item())
    return metric_log


def run(batches):
    backbone = nn.Sequential(nn.Linear(48, 48), nn.GELU(), nn.Linear(48, 48))
    student = MultiCropWrapper(backbone, DINOHead(48, 64))
    teacher = copy.deepcopy(student)  # teacher and student start with the same weights
    dino_loss = DINOLoss(out_dim=64, ncrops=4)
    params_groups = [p for p in student.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(params_groups, lr=1e-3)
    data = torch.rand(256, 48, generator=torch.Generator().manual_seed(1))
    log = train_one_epoch(student, teacher, dino_loss, data, batches, optimizer, 0.996, epoch=0)
    return sum(log) / len(log)
