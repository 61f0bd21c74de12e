import torch
import torch.nn as nn

from backbone import MammothBackbone, num_flat_features, xavier


class MNISTMLP(MammothBackbone):
    """
    Network composed of two hidden layers, each containing 100 ReLU activations.
    The hidden layers form the feature extractor, the last linear layer is the classifier.
    """

    def __init__(self, input_size: int, output_size: int, hidden_size: int = 100) -> None:
        super(MNISTMLP, self).__init__()
        self.input_size = input_size
        self.output_size = output_size

        self.fc1 = nn.Linear(self.input_size, hidden_size)
        self.fc2 = nn.Linear(hidden_size, hidden_size)

        self._features = nn.Sequential(
            self.fc1,
            nn.ReLU(),
            self.fc2,
            nn.ReLU(),
        )
        self.classifier = nn.Linear(hidden_size, self.output_size)
        self.net = nn.Sequential(self._features, self.classifier)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        self.net.apply(xavier)

    def forward(self, x: torch.Tensor, returnt='out'):
        x = x.view(-1, num_flat_features(x))
        feats = self._features(x)
        if returnt == 'features':
            return feats
        out = self.classifier(feats)
        if returnt == 'out':
            return out
        elif returnt == 'both':
            return out, feats
        raise NotImplementedError("Unknown return type")
