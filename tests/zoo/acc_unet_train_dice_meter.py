# Source: https://github.com/milesial/Pytorch-UNet
# Shape: a per-class train-Dice meter sums the soft Dice returned by DiceScorer (computed on the graph-attached softmax), so the running total chains every batch's scorer branch (with its saved prob/one-hot tensors) across the epoch.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


N_CLASSES = 3


def make_batches(n, batch_size=4, size=32):
    g = torch.Generator().manual_seed(0)
    out = []
    for _ in range(n):
        img = torch.randn(batch_size, 3, size, size, generator=g)
        mask = torch.randint(0, N_CLASSES, (batch_size, size, size), generator=g)
        out.append((img, mask))
    return out


class TinyUNet(nn.Module):
    def __init__(self, n_channels=3, n_classes=N_CLASSES, width=8):
        super().__init__()
        self.inc = nn.Sequential(nn.Conv2d(n_channels, width, 3, padding=1), nn.ReLU(inplace=True))
        self.down = nn.Sequential(nn.MaxPool2d(2), nn.Conv2d(width, width * 2, 3, padding=1), nn.ReLU(inplace=True))
        self.up = nn.ConvTranspose2d(width * 2, width, 2, stride=2)
        self.outc = nn.Conv2d(width * 2, n_classes, 1)

    def forward(self, x):
        x1 = self.inc(x)
        x2 = self.down(x1)
        x3 = self.up(x2)
        return self.outc(torch.cat([x1, x3], dim=1))


def dice_coeff(input, target, reduce_batch_first=False, epsilon=1e-6):
    sum_dim = (-1, -2) if input.dim() == 2 or not reduce_batch_first else (-1, -2, -3)
    inter = 2 * (input * target).sum(dim=sum_dim)
    sets_sum = input.sum(dim=sum_dim) + target.sum(dim=sum_dim)
    sets_sum = torch.where(sets_sum == 0, inter, sets_sum)
    dice = (inter + epsilon) / (sets_sum + epsilon)
    return dice.mean()


def multiclass_dice_coeff(input, target, reduce_batch_first=False, epsilon=1e-6):
    return dice_coeff(input.flatten(0, 1), target.flatten(0, 1), reduce_batch_first, epsilon)


def dice_loss(input, target, multiclass=False):
    fn = multiclass_dice_coeff if multiclass else dice_coeff
    return 1 - fn(input, target, reduce_batch_first=True)


class DiceScorer:
    """Per-class soft Dice, used for the train-set dice curve."""

    def __init__(self, n_classes, epsilon=1e-6):
        self.n_classes = n_classes
        self.epsilon = epsilon

    def __call__(self, probs, onehot):
        inter = 2 * (probs * onehot).sum(dim=(0, 2, 3))
        sets = probs.sum(dim=(0, 2, 3)) + onehot.sum(dim=(0, 2, 3))
        return (inter + self.epsilon) / (sets + self.epsilon)


class RunningScore:
    def __init__(self, n_classes):
        self.total = torch.zeros(n_classes)
        self.count = 0

    def update(self, per_class):
        self.total = self.total + per_class  # TLK101
        self.count += 1

    def mean(self):
        return (self.total / max(self.count, 1)).tolist()


def train_model(model, batches, epochs=1, lr=1e-3):
    optimizer = torch.optim.RMSprop(model.parameters(), lr=lr, weight_decay=1e-8, momentum=0.9)
    criterion = nn.CrossEntropyLoss()
    scorer = DiceScorer(N_CLASSES)
    train_score = RunningScore(N_CLASSES)
    epoch_loss = 0.0
    for epoch in range(epochs):
        model.train()
        for images, true_masks in batches:
            masks_pred = model(images)
            probs = F.softmax(masks_pred, dim=1).float()
            onehot = F.one_hot(true_masks, N_CLASSES).permute(0, 3, 1, 2).float()
            loss = criterion(masks_pred, true_masks)
            loss += dice_loss(probs, onehot, multiclass=True)

            optimizer.zero_grad(set_to_none=True)
            loss.backward()
            optimizer.step()

            train_score.update(scorer(probs, onehot))
            epoch_loss += loss.item()
    return epoch_loss, train_score


def run(steps):
    model = TinyUNet()
    epoch_loss, train_score = train_model(model, make_batches(steps))
    return model, train_score


if __name__ == "__main__":
    _, score = run(10)
    print(score.mean())
