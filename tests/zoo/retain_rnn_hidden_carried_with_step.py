# Source: https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Shape: the RNN regression's "fix" for the second-backward error: h_state is still carried undetached and the backward gets retain_graph=True; with optimizer.step() modifying the weights the retained graphs saved, it now raises "modified by an inplace operation" on iteration 2 instead of growing (measured)
# Verdict: leak
import torch
import torch.nn as nn

rnn = nn.RNN(input_size=1, hidden_size=32, batch_first=True)
head = nn.Linear(32, 1)
optimizer = torch.optim.Adam(list(rnn.parameters()) + list(head.parameters()), lr=0.02)
mse = nn.MSELoss()

h_state = None
for step in range(200):
    steps = torch.linspace(step * torch.pi, (step + 1) * torch.pi, 10)
    x = torch.sin(steps).view(1, 10, 1)
    y = torch.cos(steps).view(1, 10, 1)
    r_out, h_state = rnn(x, h_state)
    prediction = head(r_out)
    loss = mse(prediction, y)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)  # TLK202
    optimizer.step()
