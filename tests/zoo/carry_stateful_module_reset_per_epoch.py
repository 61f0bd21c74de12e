# Source: https://github.com/sgadgil6/cnslab_fmri/issues/4
# Shape: an fMRI LSTM keeps its (h, c) on the module and feeds it back in forward(); the training script resets it only at the start of each epoch, so within an epoch every batch links to the previous batch's graph and the second backward raises
# Verdict: leak
import torch
import torch.nn as nn


class ScanLSTM(nn.Module):
    def __init__(self, n_regions, hidden_dim=128, batch_size=64):
        super().__init__()
        self.hidden_dim, self.batch_size = hidden_dim, batch_size
        self.lstm = nn.LSTM(n_regions, hidden_dim, batch_first=True)
        self.classifier = nn.Linear(hidden_dim, 1)
        self.hidden = self.reset_state()

    def reset_state(self):
        return (torch.zeros(1, self.batch_size, self.hidden_dim),
                torch.zeros(1, self.batch_size, self.hidden_dim))

    def forward(self, scans):
        seq_out, self.hidden = self.lstm(scans, self.hidden)  # TLK103
        return torch.sigmoid(self.classifier(seq_out[:, -1]))


net = ScanLSTM(n_regions=90)
bce = nn.BCELoss()
opt = torch.optim.Adam(net.parameters(), lr=1e-4)

for epoch in range(30):
    net.hidden = net.reset_state()
    for scans, label in scan_loader:
        prob = net(scans)
        loss = bce(prob.squeeze(1), label.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
