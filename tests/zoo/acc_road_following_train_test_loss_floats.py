# Source: https://github.com/NVIDIA-AI-IOT/jetbot/pull/117
# Shape: the fixed road-following notebook: each training batch's steering MSE is added to train_loss as float(loss), and the evaluation pass runs under torch.no_grad() and adds float(loss) too, so the epoch sums are plain numbers and no batch's graph outlives its iteration.
# Verdict: clean
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
            train_loss += float(loss)
            loss.backward()
            optimizer.step()
        train_loss /= len(train_loader)

        net.eval()
        test_loss = 0.0
        with torch.no_grad():
            for images, labels in iter(test_loader):
                outputs = net(images)
                loss = F.mse_loss(outputs, labels)
                test_loss += float(loss)
        test_loss /= len(test_loader)

        log.append("%f, %f" % (train_loss, test_loss))
        if test_loss < best_loss:
            if best_model_path is not None:
                torch.save(net.state_dict(), best_model_path)
            best_loss = test_loss
    return log
