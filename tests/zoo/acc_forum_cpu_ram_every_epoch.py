# Source: https://discuss.pytorch.org/t/cpu-ram-usage-increasing-for-every-epoch/24475
# Shape: train() sums the attached loss (train_loss += loss) and the epoch average goes into the history used for the loss plot, so every batch's graph is chained into one tensor that is kept for good; RAM grows with every batch and every epoch.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F

N_FEAT = 40
N_CLASSES = 4
BATCH = 64
BATCHES_PER_EPOCH = 5

model = None
optimizer = None
history = {"train_loss": [], "val_loss": [], "val_acc": []}


def make_batches(n_batches, seed=0):
    torch.manual_seed(seed)
    W = torch.randn(N_FEAT, N_CLASSES)
    out = []
    for _ in range(n_batches):
        x = torch.randn(BATCH, N_FEAT)
        y = (x @ W + 0.5 * torch.randn(BATCH, N_CLASSES)).argmax(1)
        out.append((x, y))
    return out


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.fc1 = nn.Linear(N_FEAT, 256)
        self.fc2 = nn.Linear(256, 256)
        self.drop = nn.Dropout(0.2)
        self.fc3 = nn.Linear(256, N_CLASSES)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        x = self.drop(F.relu(self.fc2(x)))
        return self.fc3(x)


def train(epoch, train_loader):
    model.train()
    train_loss = 0
    for batch_idx, (data, target) in enumerate(train_loader):
        optimizer.zero_grad()
        output = model(data)
        loss = F.cross_entropy(output, target)
        loss.backward()
        optimizer.step()
        train_loss += loss  # TLK101
    history["train_loss"].append(train_loss / len(train_loader))
    print("Epoch: {} \tTraining Loss: {:.6f}".format(epoch, float(train_loss) / len(train_loader)))


def validate(val_loader):
    model.eval()
    val_loss, correct, total = 0.0, 0, 0
    with torch.no_grad():
        for data, target in val_loader:
            output = model(data)
            val_loss += F.cross_entropy(output, target).item()
            correct += (output.argmax(1) == target).sum().item()
            total += target.size(0)
    history["val_loss"].append(val_loss / len(val_loader))
    history["val_acc"].append(correct / total)


def run(steps):
    """`steps` training iterations, BATCHES_PER_EPOCH per epoch, validation each epoch."""
    global model, optimizer
    torch.manual_seed(0)
    for v in history.values():
        del v[:]
    model = Net()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    train_data = make_batches(BATCHES_PER_EPOCH, seed=0)
    val_data = make_batches(2, seed=1)
    n_epochs = max(1, steps // BATCHES_PER_EPOCH)
    for epoch in range(1, n_epochs + 1):
        train(epoch, train_data)
        validate(val_data)
    return {"model": model, "history": history}


if __name__ == "__main__":
    run(10)
