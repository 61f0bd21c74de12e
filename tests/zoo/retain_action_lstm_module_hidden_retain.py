# Source: https://github.com/pytorch/pytorch/issues/2769
# Shape: an action-recognition LSTM keeps self.hidden on the module and feeds it back in forward(), so consecutive batches are chained; to silence "backward through the graph a second time" the training function passes retain_graph=True, so each backward walks back into the earlier steps' retained graphs, whose saved weights optimizer.step() has since modified: it raises "modified by an inplace operation" on the second batch (measured) instead of training.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class ClipLSTM(nn.Module):
    def __init__(self, input_len=1024, hidden_len=1024, target_size=101):
        super().__init__()
        self.hidden_len = hidden_len
        self.lstm = nn.LSTM(input_len, hidden_len, batch_first=True)
        self.hidden2class = nn.Linear(hidden_len, target_size)
        self.hidden = self.init_hidden()

    def init_hidden(self, batch_size=1):
        return (torch.zeros(1, batch_size, self.hidden_len), torch.zeros(1, batch_size, self.hidden_len))

    def forward(self, x):
        lstm_out, self.hidden = self.lstm(x, self.hidden)
        return F.log_softmax(self.hidden2class(lstm_out[:, -1, :]), dim=-1)


def train(train_data, model, optimizer, epoch, print_freq=100):
    model.train()
    running = 0.0
    for i, (clip_features, target) in enumerate(train_data):
        output = model(clip_features)
        loss = F.nll_loss(output, target)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)  # TLK202
        optimizer.step()
        running += loss.item()
        if i % print_freq == 0:
            print(f"epoch {epoch} [{i}] loss {running / (i + 1):.4f}")
