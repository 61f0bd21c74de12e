# Layout modelled on HobbitLong/RepDistiller (models/__init__.py and models/resnet.py): every
# network returns its logits, or (features, logits) when asked with is_feat=True, and the script
# picks architectures by name from model_dict. Reduced to two MLP widths.
import torch.nn as nn
import torch.nn.functional as F


class MLPNet(nn.Module):
    def __init__(self, width, num_classes=10, in_dim=32):
        super().__init__()
        self.fc1 = nn.Linear(in_dim, width)
        self.fc2 = nn.Linear(width, width)
        self.classifier = nn.Linear(width, num_classes)

    def forward(self, x, is_feat=False):
        f1 = F.relu(self.fc1(x))
        f2 = F.relu(self.fc2(f1))
        logits = self.classifier(f2)
        if is_feat:
            return [f1, f2], logits
        return logits


def wide(num_classes=10):
    return MLPNet(64, num_classes)


def thin(num_classes=10):
    return MLPNet(16, num_classes)


model_dict = {"wide": wide, "thin": thin}
