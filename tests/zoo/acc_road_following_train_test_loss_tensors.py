# Source: https://github.com/NVIDIA-AI-IOT/jetbot/pull/117
# Shape: a road-following notebook sums each training batch's steering MSE into train_loss and, in the evaluation pass that follows without torch.no_grad(), each test batch's MSE into test_loss; both sums stay tensors attached to the graph, so an epoch's chain of autograd nodes, and in the test pass every batch's saved activations, stay alive until the epoch's averages are printed.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class SteeringRegressor(nn.Module):
    def __init__(self, in_ch=3, width=16):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.Conv2d(width, width, 3, stride=2, padding=1),
            nn.ReLU(),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(width, 2)

    def forward(self, images):
        return self.fc(self.features(images).flatten(1))


def train_road_following(net, train_loader, test_loader, num_epochs=1, best_model_path=None):
    optimizer = torch.optim.Adam(net.parameters())
    best_loss = 1e9
    log = []
    for epoch in range(num_epochs):
        net.train()
        train_loss = 0.0
        for images, labels in iter(train_loader):
            optimizer.zero_grad()
            outputs = net(images)
            loss = F.mse_loss(outputs, labels)
            train_loss += loss  # TLK101
            loss.backward()
            optimizer.step()
        train_loss /= len(train_loader)

        net.eval()
        test_loss = 0.0
        for images, labels in iter(test_loader):
            outputs = net(images)
            loss = F.mse_loss(outputs, labels)
            test_loss += loss  # TLK101
        test_loss /= len(test_loader)

        log.append("%f, %f" % (train_loss, test_loss))
        if float(test_loss) < best_loss:
            if best_model_path is not None:
                torch.save(net.state_dict(), best_model_path)
            best_loss = float(test_loss)
    return log
