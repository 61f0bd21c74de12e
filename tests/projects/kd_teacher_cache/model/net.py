"""Student / teacher CNNs and the distillation loss."""
import torch.nn as nn
import torch.nn.functional as F


class StudentNet(nn.Module):
    def __init__(self, num_classes=10, channels=8):
        super().__init__()
        self.conv1 = nn.Conv2d(3, channels, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(channels)
        self.conv2 = nn.Conv2d(channels, channels * 2, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(channels * 2)
        self.fc = nn.Linear(channels * 2 * 2 * 2, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.bn1(self.conv1(x))), 2)
        x = F.max_pool2d(F.relu(self.bn2(self.conv2(x))), 2)
        return self.fc(x.flatten(1))


class TeacherNet(nn.Module):
    def __init__(self, num_classes=10, width=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.ReLU(),
            nn.AdaptiveAvgPool2d(2),
        )
        self.head = nn.Sequential(nn.Linear(width * 4, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def loss_fn(outputs, labels):
    return F.cross_entropy(outputs, labels)


def loss_fn_kd(outputs, labels, teacher_outputs, params):
    """Hinton et al. distillation loss: KL on softened logits plus hard-label CE."""
    alpha = params.alpha
    T = params.temperature
    soft_targets = F.softmax(teacher_outputs.detach() / T, dim=1)
    kd = F.kl_div(F.log_softmax(outputs / T, dim=1), soft_targets, reduction="batchmean")
    return kd * (alpha * T * T) + F.cross_entropy(outputs, labels) * (1.0 - alpha)
