# Source: https://github.com/sgadgil6/cnslab_fmri/pull/5
# Shape: the fixed fMRI LSTM still stores the final (h, c) on self in forward() but never passes it back into the LSTM, so each batch starts from zeros; only the last batch's state is kept (no chain, no growth: measured 0 B/iter)
# Verdict: clean
import torch
import torch.nn as nn


class ScanLSTM(nn.Module):
    def __init__(self, n_regions, hidden_dim=128):
        super().__init__()
        self.lstm = nn.LSTM(n_regions, hidden_dim, batch_first=True)
        self.dropout = nn.Dropout(0.2)
        self.classifier = nn.Linear(hidden_dim, 1)
        self.hidden = None

    def forward(self, scans):
        seq_out, self.hidden = self.lstm(scans)
        feats = self.dropout(seq_out[:, -1])
        return torch.sigmoid(self.classifier(feats))


net = ScanLSTM(n_regions=90)
bce = nn.BCELoss()
opt = torch.optim.Adam(net.parameters(), lr=1e-4)

for epoch in range(30):
    for scans, label in scan_loader:
        prob = net(scans)
        loss = bce(prob.squeeze(1), label.float())
        opt.zero_grad()
        loss.backward()
        opt.step()
