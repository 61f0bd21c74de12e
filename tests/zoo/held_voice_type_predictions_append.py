# Source: https://github.com/MarvinLvn/voice-type-classifier/issues/12
# Shape: an inference helper class runs its speech model over a dataloader in eval mode but without torch.no_grad() and appends every batch's scores to a predictions list that it concatenates at the end; each stored score tensor keeps its batch's whole forward graph (LSTM activations included) until prediction finishes. The fix in the thread was to store p.detach().cpu() (or a list).
# Verdict: leak
import torch
import torch.nn as nn

STEPS = 30


class VoiceTypeNet(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.frontend = nn.Conv1d(1, 16, kernel_size=25, stride=10)
        self.lstm = nn.LSTM(16, 32, batch_first=True, bidirectional=True)
        self.classifier = nn.Linear(64, n_classes)

    def forward(self, waveform):
        feats = torch.relu(self.frontend(waveform)).transpose(1, 2)
        out, _ = self.lstm(feats)
        return torch.sigmoid(self.classifier(out))


class Inferencer:
    def __init__(self, net, device="cpu"):
        self.net = net.to(device)
        self.device = device

    def predict(self, dataloader):
        self.net.eval()
        predictions = []
        for batch in dataloader:
            p = self.net(batch.to(self.device))
            predictions.append(p)  # TLK102
        return torch.cat(predictions, dim=0)


def chunks(n):
    for _ in range(n):
        yield torch.randn(4, 1, 1600)


inferencer = Inferencer(VoiceTypeNet())
scores = inferencer.predict(chunks(STEPS))
print(scores.shape)
