# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Shape: the same sine-to-cosine RNN, but h_state is replaced by h_state.data right after the forward pass, so the next batch starts from a tensor with no history
# Verdict: clean
import torch
import torch.nn as nn


class SeqRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(input_size=1, hidden_size=32, num_layers=1, batch_first=True)
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        return self.out(r_out), h_state


model = SeqRegressor()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
loss_func = nn.MSELoss()

h_state = None
for step in range(100):
    start, end = step * torch.pi, (step + 1) * torch.pi
    t = torch.linspace(start, end, 10)
    x = torch.sin(t)[None, :, None]
    y = torch.cos(t)[None, :, None]

    prediction, h_state = model(x, h_state)
    h_state = h_state.data

    loss = loss_func(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
