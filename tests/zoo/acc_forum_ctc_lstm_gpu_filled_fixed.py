# Source: https://discuss.pytorch.org/t/gpu-memory-gets-filled/8190
# Shape: Fixed: train_model() returns cost.item(), so the epoch loop adds Python floats and nothing of the graph outlives the step; the (unneeded but harmless) requires_grad=True on the input is left as the asker had it.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

N_FEATS = 40
N_LABELS = 12      # blank = 0
HIDDEN = 96


def make_batches(n_batches, seed=0):
    """batch = (target labels, input features [T, F], input length, target length), batch size 1."""
    torch.manual_seed(seed)
    out = []
    for _ in range(n_batches):
        T = int(torch.randint(60, 80, (1,)))
        L = int(torch.randint(5, 12, (1,)))
        target = torch.randint(1, N_LABELS, (L,)).tolist()
        feats = torch.randn(T, N_FEATS)
        out.append((target, feats, [T], [L]))
    return out


class SpeechLSTM(nn.Module):
    def __init__(self):
        super(SpeechLSTM, self).__init__()
        self.lstm = nn.LSTM(N_FEATS, HIDDEN, num_layers=1)
        self.proj = nn.Linear(HIDDEN, N_LABELS)

    def forward(self, x):
        # x: [T, F] -> [T, 1, F]
        out, _ = self.lstm(x.unsqueeze(1))
        return F.log_softmax(self.proj(out.squeeze(1)), dim=-1)


model = None
opt = None


def ctc_loss(output, target, input_length, target_length):
    return F.ctc_loss(output, target.unsqueeze(0), input_length, target_length, blank=0)


def train_model(batch):
    opt.zero_grad()
    input = Variable(batch[1].clone(), requires_grad=True)
    target = torch.IntTensor(batch[0])
    input_length = torch.IntTensor(batch[2])
    target_length = torch.IntTensor(batch[3])
    output = model(input)
    output = output.unsqueeze(1)
    cost = ctc_loss(output, target, input_length, target_length)
    cost.backward()
    opt.step()
    return cost.item()


def run(steps):
    global model, opt
    torch.manual_seed(0)
    model = SpeechLSTM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    epoch_cost = 0
    cost_log = []
    for i, batch in enumerate(make_batches(steps)):
        epoch_cost += train_model(batch)
        if (i + 1) % 10 == 0:
            cost_log.append(epoch_cost / (i + 1))
    return {"model": model, "epoch_cost": epoch_cost, "cost_log": cost_log}


if __name__ == "__main__":
    run(10)
