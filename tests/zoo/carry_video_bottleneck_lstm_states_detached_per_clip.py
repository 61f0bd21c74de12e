# Source: https://github.com/vikrant7/mobile-vod-bottleneck-lstm/issues/6
# Shape: the video detector's Bottleneck-LSTM layer keeps its hidden and cell states on the module across clips, and the training loop calls net.lstm.detach_states() after each clip's optimizer step, which detaches both states in place, so the next clip starts from the previous clip's values without its graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class BottleneckLSTMCell(nn.Module):
    def __init__(self, channels, hidden_channels, height, width):
        super().__init__()
        self.bottleneck = nn.Conv2d(channels + hidden_channels, hidden_channels, 3, padding=1)
        self.gates = nn.Conv2d(hidden_channels, 4 * hidden_channels, 1)
        self.hidden_state = torch.zeros(1, hidden_channels, height, width)
        self.cell_state = torch.zeros(1, hidden_channels, height, width)

    def forward(self, x):
        b = F.relu(self.bottleneck(torch.cat([x, self.hidden_state.expand(x.size(0), -1, -1, -1)], 1)))
        i, f, o, g = self.gates(b).chunk(4, dim=1)
        c = torch.sigmoid(f) * self.cell_state + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        self.hidden_state, self.cell_state = h, c
        return h

    def detach_states(self):
        self.hidden_state.detach_()
        self.cell_state.detach_()


class VideoDetector(nn.Module):
    def __init__(self, num_classes=4, channels=16, height=8, width=8):
        super().__init__()
        self.backbone = nn.Sequential(nn.Conv2d(3, channels, 3, stride=4, padding=1), nn.ReLU())
        self.lstm = BottleneckLSTMCell(channels, channels, height, width)
        self.cls_head = nn.Conv2d(channels, num_classes, 1)

    def forward(self, frame):
        return self.cls_head(self.lstm(self.backbone(frame)))


def train_on_clips(net, clips, lr=1e-3):
    optimizer = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    clip_losses = []
    for frames, targets in clips:
        optimizer.zero_grad()
        loss = 0.0
        for frame, target in zip(frames, targets):
            scores = net(frame)
            loss = loss + F.cross_entropy(scores, target)
        loss = loss / len(frames)
        loss.backward()
        optimizer.step()
        net.lstm.detach_states()
        clip_losses.append(loss.item())
    return clip_losses
