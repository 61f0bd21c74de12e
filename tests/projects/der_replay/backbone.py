# Modelled on backbone/MNISTMLP.py of aimagelab/mammoth: a two-layer MLP backbone whose forward
# returns the logits, or the features when asked (returnt="features").
import torch.nn as nn


class MNISTMLP(nn.Module):
    def __init__(self, input_size, output_size, hidden_size=32):
        super().__init__()
        self._features = nn.Sequential(nn.Linear(input_size, hidden_size), nn.ReLU(), nn.Linear(hidden_size, hidden_size), nn.ReLU())
        self.classifier = nn.Linear(hidden_size, output_size)

    def forward(self, x, returnt="out"):
        feats = self._features(x.flatten(1))
        if returnt == "features":
            return feats
        return self.classifier(feats)
