# Source: https://github.com/gabrielloye/RNN-walkthrough/issues/3
# Shape: the character RNN with the change the reporter made: forward() still starts each epoch from the state kept on the module, but feeds self.hidden.detach(), so every epoch's graph begins at a constant and the single backward per epoch never reaches a freed graph.
# Verdict: clean
import torch
import torch.nn as nn


class Model(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.rnn = nn.RNN(input_size, hidden_dim, n_layers, batch_first=True)
        self.fc = nn.Linear(hidden_dim, output_size)
        self.hidden = None

    def init_hidden(self, batch_size):
        return torch.zeros(self.n_layers, batch_size, self.hidden_dim)

    def forward(self, x):
        if self.hidden is None:
            self.hidden = self.init_hidden(x.size(0))
        out, self.hidden = self.rnn(x, self.hidden.detach())
        out = out.contiguous().view(-1, self.hidden_dim)
        return self.fc(out), self.hidden


def train(model, input_seq, target_seq, n_epochs=100, lr=0.01):
    criterion = nn.CrossEntropyLoss()
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)
    for epoch in range(1, n_epochs + 1):
        optimizer.zero_grad()
        output, hidden = model(input_seq)
        loss = criterion(output, target_seq.view(-1).long())
        loss.backward()
        optimizer.step()
        if epoch % 10 == 0:
            print("Epoch: {}/{}.............".format(epoch, n_epochs), end=" ")
            print("Loss: {:.4f}".format(loss.item()))


if __name__ == "__main__":
    dict_size, seq_len, batch = 17, 14, 3
    input_seq = nn.functional.one_hot(torch.randint(0, dict_size, (batch, seq_len)), dict_size).float()
    target_seq = torch.randint(0, dict_size, (batch, seq_len))
    train(Model(dict_size, dict_size, 12, 1), input_seq, target_seq, n_epochs=3)
