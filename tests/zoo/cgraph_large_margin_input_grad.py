# Source: https://discuss.pytorch.org/t/implementation-of-large-margin-deep-networks-for-classification/43047
# Shape: the large-margin loss gets d(prob difference)/d(input) from diff.sum().backward(create_graph=True) and reads data.grad; data.grad keeps a grad_fn whose graph ends in data's own AccumulateGrad, so every batch's input, its .grad and the double-backward graph form a reference cycle that is never freed.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class Args:
    batch_size = 32
    lr = 0.01
    momentum = 0.5
    gamma = 10.0          # margin, in input-distance units
    top_k = 2             # how many competing classes enter the margin loss
    log_interval = 5
    eps = 1e-6


class Net(nn.Module):
    """The PyTorch MNIST example network, shrunk."""

    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.fc1 = nn.Linear(16 * 4 * 4, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = x.view(-1, 16 * 4 * 4)
        x = F.relu(self.fc1(x))
        x = self.fc2(x)
        return F.log_softmax(x, dim=1)


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, batch_size):
    g = torch.Generator().manual_seed(seed)
    data = torch.randn(batch_size, 1, 12, 12, generator=g)
    target = torch.randint(0, 10, (batch_size,), generator=g)
    return data, target


def maximum_with_relu(a, b):
    return a + F.relu(b - a)


def train(args, model, device, train_loader, optimizer, epoch, num_classes=10):
    model.train()
    losses = []
    for batch_idx, seed in enumerate(train_loader):
        data, target = load_batch(seed, args.batch_size)
        data, target = data.to(device), target.to(device)
        data.requires_grad_()
        optimizer.zero_grad()
        output = model(data)
        # get the difference between true class probability
        # and all other probabilities
        class_prob = torch.exp(output)
        correct_class_prob = class_prob.gather(1, target.unsqueeze(1))
        other_class_prob = class_prob.clone()
        other_class_prob[torch.arange(len(other_class_prob)), target] = 0
        topk_other_class_prob, topk_other_class_idx = torch.topk(other_class_prob, k=num_classes - 1, dim=1)
        difference_prob = correct_class_prob - topk_other_class_prob
        # find difference_prob / || grad of input wrt difference prob ||_2
        # loop through each probability found above and use this as a loss
        loss = 0
        for i in range(args.top_k):
            diff_i = difference_prob[:, i]
            diff_i.sum().backward(create_graph=True)  # TLK302
            grad_norm = data.grad.view(data.size(0), -1).norm(2, dim=1)
            data.grad.data.zero_()
            dist = diff_i / (grad_norm + args.eps)
            loss = loss + maximum_with_relu(torch.zeros_like(dist), args.gamma - dist)
        loss = loss.mean()
        # the create_graph backward also wrote into the parameters' .grad
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(loss.item())
        if batch_idx % args.log_interval == 0:
            pass  # print('Train Epoch: {} [{}]\tLoss: {:.6f}'.format(epoch, batch_idx, loss.item()))
    return losses


def run(batches):
    args = Args()
    device = torch.device("cpu")
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum)
    return train(args, model, device, batches, optimizer, epoch=1)
