# Source: https://github.com/mahyarnajibi/FreeAdversarialTraining/blob/d70774030871fa3207e09ce8528c1b84cd690603/main_free.py
# Shape: fixed: the updated global noise is detached and each replay starts from a fresh leaf copy, so a plain backward() suffices and no noise history is kept.
# Verdict: clean
import torch
import torch.nn as nn


class PreActBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.bn = nn.BatchNorm2d(ch)
        self.conv = nn.Conv2d(ch, ch, 3, padding=1, bias=False)

    def forward(self, x):
        return x + self.conv(torch.relu(self.bn(x)))


class TinyResNet(nn.Module):
    def __init__(self, num_classes=10, ch=16):
        super().__init__()
        self.stem = nn.Conv2d(3, ch, 3, padding=1, bias=False)
        self.block = PreActBlock(ch)
        self.fc = nn.Linear(ch, num_classes)

    def forward(self, x):
        return self.fc(self.block(self.stem(x)).mean((2, 3)))


class AverageMeter:
    def __init__(self):
        self.val = self.avg = self.sum = 0.0
        self.count = 0

    def update(self, val, n=1):
        self.val = val
        self.sum += val * n
        self.count += n
        self.avg = self.sum / self.count


def fgsm(gradz, step_size):
    return step_size * torch.sign(gradz)


class FreeAdversarialTrainer:
    def __init__(self, model, configs):
        self.model = model
        self.configs = configs
        self.criterion = nn.CrossEntropyLoss()
        self.optimizer = torch.optim.SGD(model.parameters(), configs["lr"], momentum=0.9, weight_decay=5e-4)
        self.global_noise_data = torch.zeros([configs["batch_size"], 3, configs["crop_size"], configs["crop_size"]])
        self.mean = torch.tensor(configs["mean"]).view(3, 1, 1)
        self.std = torch.tensor(configs["std"]).view(3, 1, 1)

    def _update_noise(self, noise_batch):
        pert = fgsm(noise_batch.grad, self.configs["fgsm_step"])
        self.global_noise_data = torch.clamp(noise_batch + pert, -self.configs["clip_eps"], self.configs["clip_eps"]).detach()

    def train(self, data, targets, batches):
        losses = AverageMeter()
        self.model.train()
        for index in batches:
            input, target = data[index], targets[index]
            for j in range(self.configs["n_repeats"]):
                # Ascend on the global noise
                noise_batch = self.global_noise_data[0:input.size(0)].clone().requires_grad_(True)
                in1 = torch.clamp(input + noise_batch, 0, 1.0)
                in1 = (in1 - self.mean) / self.std
                output = self.model(in1)
                loss = self.criterion(output, target)
                losses.update(loss.item(), input.size(0))

                # compute gradient and do SGD step
                self.optimizer.zero_grad()
                loss.backward()

                # Update the noise for the next iteration
                self._update_noise(noise_batch)
                self.optimizer.step()
        return losses.avg


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    return [torch.randint(0, 256, (32,), generator=g) for _ in range(n)]


def run(batches):
    configs = {"lr": 0.05, "batch_size": 32, "crop_size": 8, "n_repeats": 2, "fgsm_step": 2 / 255,
               "clip_eps": 4 / 255, "mean": [0.5, 0.5, 0.5], "std": [0.25, 0.25, 0.25]}
    data = torch.rand(256, 3, 8, 8, generator=torch.Generator().manual_seed(1))
    targets = torch.randint(0, 10, (256,), generator=torch.Generator().manual_seed(2))
    trainer = FreeAdversarialTrainer(TinyResNet(), configs)
    return trainer.train(data, targets, batches)
