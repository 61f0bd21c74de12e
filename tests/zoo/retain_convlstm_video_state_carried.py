# Source: https://github.com/automan000/Convolutional_LSTM_PyTorch/issues/2
# Shape: CNN features of consecutive video clips go through a ConvLSTM cell whose (h, c) state is carried from clip to clip undetached; backward raised "specify retain_graph=True", so the loss is backwarded with retain_graph=True: every backward now walks, and keeps alive, the graphs of all previous clips (memory and step time grow, the report's slowdown), and with the optimizer stepping every clip the second backward hits weights modified in place.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class ConvLSTMCell(nn.Module):
    def __init__(self, input_channels, hidden_channels, kernel_size=3):
        super().__init__()
        self.hidden_channels = hidden_channels
        self.gates = nn.Conv2d(input_channels + hidden_channels, 4 * hidden_channels, kernel_size, padding=kernel_size // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.gates(torch.cat([x, h], dim=1)).chunk(4, dim=1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c

    def init_hidden(self, batch, height, width):
        zeros = torch.zeros(batch, self.hidden_channels, height, width)
        return zeros, zeros.clone()


class ClipClassifier(nn.Module):
    def __init__(self, n_classes=5):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
        self.convlstm = ConvLSTMCell(32, 32)
        self.fc = nn.Linear(32, n_classes)

    def forward(self, frames, state):
        for t in range(frames.size(1)):
            state = self.convlstm(self.features(frames[:, t]), state)
        return self.fc(state[0].mean(dim=(2, 3))), state


def train(model, clips, lr=1e-3):
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9)
    state = model.convlstm.init_hidden(2, 8, 8)
    for step, (frames, labels) in enumerate(clips):
        optimizer.zero_grad()
        logits, state = model(frames, state)
        loss = F.cross_entropy(logits, labels)
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
        print(step, loss.item())


if __name__ == "__main__":
    clips = [(torch.randn(2, 4, 3, 32, 32), torch.randint(0, 5, (2,))) for _ in range(3)]
    train(ClipClassifier(), clips)
