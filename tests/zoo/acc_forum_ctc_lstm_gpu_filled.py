# Source: https://discuss.pytorch.org/t/gpu-memory-gets-filled/8190
# Shape: train_model() returns the attached CTC cost and the epoch loop adds it up (epoch_cost += cost) to print/convert it at the end of the epoch, so every utterance's graph, its input (created with requires_grad=True) and that input's .grad stay chained in epoch_cost until the epoch is over.
# Verdict: leak
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
    return cost


def run(steps):
    global model, opt
    torch.manual_seed(0)
    model = SpeechLSTM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    epoch_cost = 0
    cost_log = []
    for i, batch in enumerate(make_batches(steps)):
        epoch_cost += train_model(batch)  # TLK101
        if (i + 1) % 10 == 0:
            cost_log.append(float(epoch_cost.data) / (i + 1))
    return {"model": model, "epoch_cost": epoch_cost, "cost_log": cost_log}


if __name__ == "__main__":
    run(10)
