# Source: https://github.com/1ytic/warp-rnnt/issues/12
# Shape: the streaming transducer carries the encoder/prediction-network states from one audio chunk to the next without detaching them; retain_graph=True silences "backward through the graph a second time", so every chunk's graph stays alive.
# Verdict: leak
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

FEAT, HID, VOCAB, CHUNK, U = 16, 48, 24, 12, 4
BLANK = 0

# One long recording (e.g. an audiobook chapter) pre-computed once; batches are consecutive chunks of it.
_g = torch.Generator().manual_seed(1234)
LONG_FEATS = torch.randn(4, 400 * CHUNK, FEAT, generator=_g)
LONG_LABELS = torch.randint(1, VOCAB, (4, 400 * U), generator=_g)


class ChunkDataset:
    def __init__(self, feats, labels):
        self.feats, self.labels = feats, labels

    def get(self, idx):
        return (self.feats[:, idx * CHUNK:(idx + 1) * CHUNK],
                self.labels[:, idx * U:(idx + 1) * U])


class Transducer(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.LSTM(FEAT, HID, batch_first=True)
        self.embed = nn.Embedding(VOCAB, HID)
        self.predictor = nn.LSTM(HID, HID, batch_first=True)
        self.joint_enc = nn.Linear(HID, HID)
        self.joint_pred = nn.Linear(HID, HID)
        self.out = nn.Linear(HID, VOCAB)

    def joint(self, enc, pred):
        return self.out(torch.tanh(self.joint_enc(enc).unsqueeze(2) + self.joint_pred(pred).unsqueeze(1)))

    def forward(self, feats, labels, enc_state=None, pred_state=None):
        enc, enc_state = self.encoder(feats, enc_state)
        pred_in = F.pad(labels, (1, 0), value=BLANK)
        pred, pred_state = self.predictor(self.embed(pred_in), pred_state)
        return self.joint(enc, pred), enc_state, pred_state


def simple_transducer_loss(logits, labels):
    """Monotonic-alignment approximation of the RNN-T loss (emit label u at frame u*T/U, blank elsewhere)."""
    B, T, U1, V = logits.shape
    logp = F.log_softmax(logits, -1)
    u_of_t = torch.clamp((torch.arange(T) * (U1 - 1)) // T, max=U1 - 1)
    emit_frames = (torch.arange(U1 - 1) * T) // (U1 - 1)
    lp_blank = logp[:, torch.arange(T), u_of_t, BLANK].sum(1)
    lp_emit = logp[:, emit_frames, torch.arange(U1 - 1)].gather(-1, labels.unsqueeze(-1)).squeeze(-1).sum(1)
    return -(lp_blank + lp_emit).mean() / T


class StreamingTrainer:
    def __init__(self, lr=0.05, clip=1.0):
        torch.manual_seed(0)
        self.model = Transducer()
        self.lr, self.clip = lr, clip
        self.enc_state = None
        self.pred_state = None
        self.losses = []

    def sgd_update(self):
        torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.clip)
        for p in self.model.parameters():
            if p.grad is not None:
                p.data.add_(p.grad, alpha=-self.lr)

    def train_chunk(self, feats, labels):
        self.model.zero_grad()
        logits, self.enc_state, self.pred_state = self.model(feats, labels, self.enc_state, self.pred_state)
        loss = simple_transducer_loss(logits, labels)
        loss.backward(retain_graph=True)  # TLK202
        self.sgd_update()
        self.losses.append(loss.item())
        return loss.item()


def make_batches(n):
    return [{"chunk_idx": i} for i in range(n)]


def run(batches):
    data = ChunkDataset(LONG_FEATS, LONG_LABELS)
    trainer = StreamingTrainer()
    for batch in batches:
        feats, labels = data.get(batch["chunk_idx"])
        trainer.train_chunk(feats, labels)
    return math.exp(sum(trainer.losses) / len(trainer.losses))
