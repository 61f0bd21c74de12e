# Source: https://stackoverflow.com/questions/46774641/what-does-the-parameter-retain-graph-mean-in-the-variables-backward-method/47174709
# Shape: hybrid CTC/attention ASR step: the CTC loss and the attention loss share the encoder graph, so the first backward really needs retain_graph=True and the second backward frees everything.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

FEAT, HID, VOCAB, TF, U = 16, 32, 20, 24, 6
BLANK, SOS = 0, 1
_g = torch.Generator().manual_seed(7)
FEATS = torch.randn(64, TF, FEAT, generator=_g)
TOKENS = torch.randint(2, VOCAB, (64, U), generator=_g)


class HybridCTCAttention(nn.Module):
    def __init__(self, ctc_weight=0.3):
        super().__init__()
        self.ctc_weight = ctc_weight
        self.encoder = nn.GRU(FEAT, HID, batch_first=True)
        self.ctc_lo = nn.Linear(HID, VOCAB)
        self.embed = nn.Embedding(VOCAB, HID)
        self.decoder = nn.GRU(HID, HID, batch_first=True)
        self.att_out = nn.Linear(2 * HID, VOCAB)

    def forward(self, feats, ys):
        enc, h = self.encoder(feats)
        logp = F.log_softmax(self.ctc_lo(enc), -1).transpose(0, 1)
        loss_ctc = F.ctc_loss(logp, ys, torch.full((feats.shape[0],), TF), torch.full((feats.shape[0],), U),
                              blank=BLANK, zero_infinity=True)
        ys_in = F.pad(ys[:, :-1], (1, 0), value=SOS)
        dec, _ = self.decoder(self.embed(ys_in), h)
        att = torch.softmax(dec @ enc.transpose(1, 2), -1) @ enc
        loss_att = F.cross_entropy(self.att_out(torch.cat([dec, att], -1)).reshape(-1, VOCAB), ys.reshape(-1))
        return loss_ctc, loss_att


class Executor:
    def __init__(self, model):
        self.model = model
        self.optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        self.history = []

    def train_step(self, feats, ys):
        loss_ctc, loss_att = self.model(feats, ys)
        self.optimizer.zero_grad()
        (self.model.ctc_weight * loss_ctc).backward(retain_graph=True)
        ((1 - self.model.ctc_weight) * loss_att).backward()
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
        self.optimizer.step()
        self.history.append({"loss_ctc": loss_ctc.item(), "loss_att": loss_att.item()})


def make_batches(n):
    return [i % 16 for i in range(n)]


def run(batches):
    torch.manual_seed(0)
    ex = Executor(HybridCTCAttention())
    for b in batches:
        ex.train_step(FEATS[4 * b:4 * b + 4], TOKENS[4 * b:4 * b + 4])
    return ex.history[-1]
