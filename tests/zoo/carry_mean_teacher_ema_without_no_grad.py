# Source: https://github.com/PaddlePaddle/PaddleNLP/issues/6003
# Shape: a mean-teacher semi-supervised loop keeps shadow (EMA) weights in a dict and rebuilds them from themselves and the live parameters with grad enabled, so each shadow tensor chains one more update every step.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(10, 24)
        self.drop = nn.Dropout(0.1)
        self.fc2 = nn.Linear(24, 4)

    def forward(self, x):
        return self.fc2(self.drop(F.relu(self.fc1(x))))


class MeanTeacher:
    def __init__(self, student, decay=0.99):
        self.student = student
        self.decay = decay
        self.shadow = {k: v.detach().clone() for k, v in student.named_parameters()}

    def update(self, step):
        d = min(self.decay, (1 + step) / (10 + step))
        for name, p in self.student.named_parameters():
            self.shadow[name] = d * self.shadow[name] + (1 - d) * p  # TLK103

    def predict(self, x):
        with torch.no_grad():
            return functional_call(self.student, self.shadow, (x,)).softmax(-1)


def augment(x, g=None):
    return x + 0.1 * torch.randn_like(x)


def make_batches(n):
    g = torch.Generator().manual_seed(6)
    return [(torch.randn(8, 10, generator=g), torch.randint(0, 4, (8,), generator=g),
             torch.randn(16, 10, generator=g)) for _ in range(n)]


def run(batches):
    student = Classifier()
    teacher = MeanTeacher(student)
    opt = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9, nesterov=True)
    for step, (xl, yl, xu) in enumerate(batches):
        student.train()
        target = teacher.predict(augment(xu))
        sup = F.cross_entropy(student(xl), yl)
        cons = F.mse_loss(student(augment(xu)).softmax(-1), target)
        loss = sup + 2.0 * cons
        opt.zero_grad()
        loss.backward()
        opt.step()
        teacher.update(step)
    return loss.item()


if __name__ == "__main__":
    print(run(make_batches(5)))
