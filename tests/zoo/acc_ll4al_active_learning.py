# Source: https://github.com/Mephisto405/Learning-Loss-for-Active-Learning/blob/3c11ff7cf96d8bb4596209fe56265630fda19da6/main.py
# Shape: get_uncertainty() scores the unlabeled subset without torch.no_grad() and concatenates the attached predicted losses, and the result is kept in the per-cycle query history, so every cycle's scoring graphs stay alive; train_epoch also sums the attached module loss into the epoch statistics dict.
# Verdict: leak
"""Learning Loss for Active Learning (Yoo & Kweon 2019) in the layout of the
reference implementation: config constants, a backbone returning features
for the loss-prediction module, LossNet, LossPredLoss, train_epoch/train,
test, get_uncertainty and the active-learning cycle loop."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

# ------------------------------------------------------------------ config.py
NUM_TRAIN = 512
BATCH = 16
SUBSET = 48
ADDENDUM = 32
MARGIN = 1.0
WEIGHT = 1.0
LR = 0.05
MOMENTUM = 0.9
WDECAY = 5e-4
EPOCHL = 2          # after this many epochs the module stops sending grads to the backbone
ITERS_PER_CYCLE = 5


# ------------------------------------------------------------------ models/resnet.py, lossnet.py
class Backbone(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        chans = [3, 8, 16, 32, 32]
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.Conv2d(chans[i], chans[i + 1], 3, stride=1 if i == 0 else 2, padding=1),
                          nn.BatchNorm2d(chans[i + 1]), nn.ReLU())
            for i in range(4)])
        self.linear = nn.Linear(chans[-1], num_classes)

    def forward(self, x):
        features = []
        out = x
        for block in self.blocks:
            out = block(out)
            features.append(out)
        out = F.adaptive_avg_pool2d(out, 1).flatten(1)
        return self.linear(out), features


class LossNet(nn.Module):
    def __init__(self, num_channels=(8, 16, 32, 32), interm_dim=32):
        super().__init__()
        self.FCs = nn.ModuleList([nn.Linear(c, interm_dim) for c in num_channels])
        self.linear = nn.Linear(4 * interm_dim, 1)

    def forward(self, features):
        outs = []
        for f, fc in zip(features, self.FCs):
            out = F.adaptive_avg_pool2d(f, 1).flatten(1)
            outs.append(F.relu(fc(out)))
        return self.linear(torch.cat(outs, 1))


# ------------------------------------------------------------------ main.py
def LossPredLoss(input, target, margin=1.0, reduction='mean'):
    assert len(input) % 2 == 0, 'the batch size is not even.'
    assert input.shape == input.flip(0).shape
    input = (input - input.flip(0))[:len(input) // 2]
    target = (target - target.flip(0))[:len(target) // 2]
    target = target.detach()
    one = 2 * torch.sign(torch.clamp(target, min=0)) - 1
    if reduction == 'mean':
        loss = torch.sum(torch.clamp(margin - one * input, min=0))
        loss = loss / input.size(0)
    else:
        loss = torch.clamp(margin - one * input, min=0)
    return loss


class SyntheticCIFAR(object):
    def __init__(self, n=NUM_TRAIN, num_classes=10, seed=0):
        g = torch.Generator().manual_seed(seed)
        protos = torch.randn(num_classes, 3, 16, 16, generator=g)
        self.targets = torch.randint(0, num_classes, (n,), generator=g)
        self.data = protos[self.targets] + 0.8 * torch.randn(n, 3, 16, 16, generator=g)


def make_batches(dataset, indices, batch_size=BATCH, shuffle=True, seed=0):
    indices = list(indices)
    if shuffle:
        random.Random(seed).shuffle(indices)
    for i in range(0, len(indices) - batch_size + 1, batch_size):
        idx = torch.tensor(indices[i:i + batch_size])
        yield dataset.data[idx], dataset.targets[idx]


def train_epoch(models, criterion, optimizers, dataloader, epoch, epoch_loss, plot_data, num_iters):
    models['backbone'].train()
    models['module'].train()
    epoch_stats = {'backbone': 0., 'module': 0., 'iters': 0}
    for it, (inputs, labels) in enumerate(dataloader):
        if it >= num_iters:
            break
        optimizers['backbone'].zero_grad()
        optimizers['module'].zero_grad()

        scores, features = models['backbone'](inputs)
        target_loss = criterion(scores, labels)

        if epoch > epoch_loss:
            # stop the gradient from the loss prediction module propagated to the target model
            features = [f.detach() for f in features]
        pred_loss = models['module'](features)
        pred_loss = pred_loss.view(pred_loss.size(0))

        m_backbone_loss = torch.sum(target_loss) / target_loss.size(0)
        m_module_loss = LossPredLoss(pred_loss, target_loss, margin=MARGIN)
        loss = m_backbone_loss + WEIGHT * m_module_loss

        loss.backward()
        optimizers['backbone'].step()
        optimizers['module'].step()

        epoch_stats['backbone'] += m_backbone_loss.item()
        epoch_stats['module'] += m_module_loss  # TLK101
        epoch_stats['iters'] += 1
        plot_data['Y'].append([m_backbone_loss.item(), m_module_loss.item(), loss.item()])
    return epoch_stats


def test(models, dataset, indices):
    models['backbone'].eval()
    total, correct = 0, 0
    with torch.no_grad():
        for inputs, labels in make_batches(dataset, indices, shuffle=False):
            scores, _ = models['backbone'](inputs)
            _, preds = torch.max(scores.data, 1)
            total += labels.size(0)
            correct += (preds == labels).sum().item()
    return 100 * correct / max(total, 1)


def get_uncertainty(models, dataset, subset):
    models['backbone'].eval()
    models['module'].eval()
    uncertainty = torch.tensor([])
    for inputs, _ in make_batches(dataset, subset, shuffle=False):
        scores, features = models['backbone'](inputs)
        pred_loss = models['module'](features)
        pred_loss = pred_loss.view(pred_loss.size(0))
        uncertainty = torch.cat((uncertainty, pred_loss), 0)  # TLK102
    return uncertainty.cpu()


def run(steps):
    random.seed(0)
    torch.manual_seed(0)
    dataset = SyntheticCIFAR()
    indices = list(range(NUM_TRAIN))
    random.shuffle(indices)
    labeled_set = indices[:ADDENDUM]
    unlabeled_set = indices[ADDENDUM:]

    models = {'backbone': Backbone(num_classes=10), 'module': LossNet()}
    criterion = nn.CrossEntropyLoss(reduction='none')
    optimizers = {'backbone': torch.optim.SGD(models['backbone'].parameters(), lr=LR,
                                              momentum=MOMENTUM, weight_decay=WDECAY),
                  'module': torch.optim.SGD(models['module'].parameters(), lr=LR,
                                            momentum=MOMENTUM, weight_decay=WDECAY)}
    plot_data = {'X': [], 'Y': [], 'legend': ['Backbone Loss', 'Module Loss', 'Total Loss']}
    history = []

    done, cycle = 0, 0
    while done < steps:
        n_iters = min(ITERS_PER_CYCLE, steps - done)
        loader = make_batches(dataset, labeled_set * 4, seed=cycle)
        stats = train_epoch(models, criterion, optimizers, loader, cycle, EPOCHL, plot_data, n_iters)
        done += stats['iters']
        acc = test(models, dataset, indices[-64:])

        # Measure uncertainty of each data point in a random unlabeled subset
        random.shuffle(unlabeled_set)
        subset = unlabeled_set[:SUBSET]
        uncertainty = get_uncertainty(models, dataset, subset)
        arg = torch.argsort(uncertainty)
        chosen = torch.tensor(subset)[arg][-ADDENDUM // 4:].tolist()
        labeled_set += chosen
        unlabeled_set = [i for i in unlabeled_set if i not in set(chosen)]
        history.append({'cycle': cycle, 'acc': acc, 'labeled': len(labeled_set),
                        'uncertainty': uncertainty, 'epoch_stats': stats})
        cycle += 1
    return {'models': models, 'history': history, 'plot_data': plot_data}


if __name__ == "__main__":
    run(10)
