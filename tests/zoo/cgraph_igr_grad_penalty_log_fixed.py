# Source: https://github.com/ryderling/DEEPSEC/blob/20281e93c2e242661ef29a34f3926a21e59ad604/Defenses/DefenseMethods/IGR.py
# Shape: fixed twin: the defense records l2.item() in l2_trace, so the report keeps floats; the create_graph gradient is used only by loss.backward() in the same batch and then freed.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim


class MNISTConvNet(nn.Module):
    """Tiny version of RawModels/MNISTConv.py."""

    def __init__(self):
        super().__init__()
        self.conv32 = nn.Sequential(nn.Conv2d(1, 16, 3), nn.ReLU(), nn.Conv2d(16, 16, 3), nn.ReLU(), nn.MaxPool2d(2))
        self.fc = nn.Sequential(nn.Linear(16 * 4 * 4, 64), nn.ReLU(), nn.Linear(64, 10))

    def forward(self, x):
        out = self.conv32(x)
        out = out.view(out.size(0), -1)
        return self.fc(out)


class Defense(object):
    def __init__(self, model=None, defense_name=None):
        self.model = model
        self.defense_name = defense_name


class IGRDefense(Defense):

    def __init__(self, model=None, defense_name=None, dataset=None, lambda_r=None, training_parameters=None,
                 device=None):
        super(IGRDefense, self).__init__(model=model, defense_name=defense_name)
        self.model = model
        self.defense_name = defense_name
        self.device = device

        self.Dataset = dataset.upper()
        assert self.Dataset in ['MNIST', 'CIFAR10'], "The data set must be MNIST or CIFAR10"

        self.lam_r = lambda_r
        self.num_epochs = training_parameters['num_epochs']

        # keeping use the Adam optimizer for both datasets within the original paper
        self.optimizer = optim.Adam(self.model.parameters(), lr=0.0002, eps=1e-4)
        self.l2_trace = []

    def train_one_epoch_with_lambda_regularization(self, train_loader, epoch):
        self.model.train()
        for index, (images, labels) in enumerate(train_loader):
            images.requires_grad = True
            images = images.to(self.device)
            labels = labels.to(self.device)

            logits = self.model(images)
            # calculate the loss1
            l1 = F.cross_entropy(logits, labels)
            # calculate the loss2
            grads = torch.autograd.grad(l1, images, create_graph=True)[0]
            l2 = torch.Tensor.norm(grads, p=2) ** 2
            self.l2_trace.append(l2.item())
            # add the two losses
            loss = l1 + self.lam_r * l2

            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()

            msg = '\rTrain Epoch{:>3}: [batch:{:>4}/{:>4}]  \tloss1:{:.4f} + lambda:{} * loss2:{:.4f} = {:.4f} ===> '.format(
                epoch, index, len(train_loader), l1, self.lam_r, l2, loss)

    def defense(self, train_loader=None, validation_loader=None):
        for epoch in range(self.num_epochs):
            self.train_one_epoch_with_lambda_regularization(train_loader=train_loader, epoch=epoch)
        return sum(float(v) for v in self.l2_trace) / max(len(self.l2_trace), 1)


class SeedLoader:
    """Yields MNIST-shaped (images, labels) batches rebuilt from per-batch seeds."""

    def __init__(self, seeds, batch_size=32):
        self.seeds = seeds
        self.batch_size = batch_size

    def __len__(self):
        return len(self.seeds)

    def __iter__(self):
        for seed in self.seeds:
            g = torch.Generator().manual_seed(seed)
            yield (torch.rand(self.batch_size, 1, 12, 12, generator=g),
                   torch.randint(0, 10, (self.batch_size,), generator=g))


def make_batches(n):
    torch.manual_seed(0)
    return torch.randint(0, 2 ** 31 - 1, (n,)).tolist()


def run(batches):
    model = MNISTConvNet()
    igr = IGRDefense(model=model, defense_name='IGR', dataset='MNIST', lambda_r=316,
                     training_parameters={'num_epochs': 1}, device=torch.device('cpu'))
    return igr.defense(train_loader=SeedLoader(batches))
