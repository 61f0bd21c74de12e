# Source: https://github.com/MarvinLvn/voice-type-classifier/issues/12
# Shape: a frame classifier trainer runs a predict pass on each batch after the update and appends the raw model output tensor to a predictions list kept for the whole run.
# Verdict: leak
import torch
import torch.nn as nn


class FrameTagger(nn.Module):
    def __init__(self, feat=20, n_cls=5):
        super().__init__()
        self.lstm = nn.LSTM(feat, 16, batch_first=True)
        self.cls = nn.Linear(16, n_cls)

    def forward(self, x):
        y, _ = self.lstm(x)
        return self.cls(y).sigmoid()


def make_batches(n=24, seed=0):
    g = torch.Generator().manual_seed(seed)
    return [(torch.randn(3, 6, 20, generator=g), (torch.rand(3, 6, 5, generator=g) > 0.5).float()) for _ in range(n)]


class Trainer:
    def __init__(self):
        self.model = FrameTagger()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=1e-3)
        self.crit = nn.BCELoss()
        self.predictions = []

    def fit_batch(self, x, y):
        self.model.train()
        self.opt.zero_grad()
        loss = self.crit(self.model(x), y)
        loss.backward()
        self.opt.step()
        return loss.item()

    def predict_batch(self, x):
        self.model.eval()
        p = self.model(x)
        self.predictions.append(p)  # TLK102

    def run(self, batches):
        losses = []
        for x, y in batches:
            losses.append(self.fit_batch(x, y))
            self.predict_batch(x)
        print("mean loss", sum(losses) / len(losses), "kept", len(self.predictions))


def run(batches):
    Trainer().run(batches)


if __name__ == "__main__":
    run(make_batches())
