# Source: https://github.com/NVIDIA/tacotron2/blob/09bbec073dd056dbe366cde187ccc6a05736b6dd/logger.py
# Shape: the loss returns its mel/gate terms as attached tensors and Tacotron2Logger.log_training hands them to the in-memory writer (a base-class method) that keeps every logged value, so each iteration's decoder graph stays alive in the scalar history.
# Verdict: leak
import random
import time
from collections import defaultdict
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F


@dataclass
class HParams:
    n_symbols: int = 24
    symbols_embedding_dim: int = 32
    encoder_embedding_dim: int = 32
    n_mel_channels: int = 8
    attention_rnn_dim: int = 32
    decoder_rnn_dim: int = 32
    prenet_dim: int = 16
    attention_dim: int = 16
    postnet_embedding_dim: int = 16
    batch_size: int = 4
    text_len: int = 12
    mel_len: int = 16
    learning_rate: float = 1e-3
    grad_clip_thresh: float = 1.0
    iters_per_checkpoint: int = 10


class Prenet(nn.Module):
    def __init__(self, in_dim, size):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(in_dim, size, bias=False), nn.Linear(size, size, bias=False)])

    def forward(self, x):
        for linear in self.layers:
            x = F.dropout(F.relu(linear(x)), p=0.5, training=True)
        return x


class Encoder(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(hp.symbols_embedding_dim, hp.encoder_embedding_dim, 5, padding=2),
                                  nn.BatchNorm1d(hp.encoder_embedding_dim), nn.ReLU())
        self.lstm = nn.LSTM(hp.encoder_embedding_dim, hp.encoder_embedding_dim // 2, batch_first=True, bidirectional=True)

    def forward(self, x):
        x = self.conv(x).transpose(1, 2)
        outputs, _ = self.lstm(x)
        return outputs


class Attention(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.query_layer = nn.Linear(hp.attention_rnn_dim, hp.attention_dim, bias=False)
        self.memory_layer = nn.Linear(hp.encoder_embedding_dim, hp.attention_dim, bias=False)
        self.v = nn.Linear(hp.attention_dim, 1, bias=False)

    def forward(self, query, memory, processed_memory):
        energies = self.v(torch.tanh(self.query_layer(query).unsqueeze(1) + processed_memory)).squeeze(-1)
        attention_weights = F.softmax(energies, dim=1)
        context = torch.bmm(attention_weights.unsqueeze(1), memory).squeeze(1)
        return context, attention_weights


class Decoder(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.hp = hp
        self.prenet = Prenet(hp.n_mel_channels, hp.prenet_dim)
        self.attention_rnn = nn.LSTMCell(hp.prenet_dim + hp.encoder_embedding_dim, hp.attention_rnn_dim)
        self.attention_layer = Attention(hp)
        self.decoder_rnn = nn.LSTMCell(hp.attention_rnn_dim + hp.encoder_embedding_dim, hp.decoder_rnn_dim)
        self.linear_projection = nn.Linear(hp.decoder_rnn_dim + hp.encoder_embedding_dim, hp.n_mel_channels)
        self.gate_layer = nn.Linear(hp.decoder_rnn_dim + hp.encoder_embedding_dim, 1)

    def forward(self, memory, decoder_inputs):
        B = memory.size(0)
        hp = self.hp
        go = memory.new_zeros(1, B, hp.n_mel_channels)
        decoder_inputs = torch.cat((go, decoder_inputs.permute(2, 0, 1)), dim=0)
        prenet_out = self.prenet(decoder_inputs)
        processed_memory = self.attention_layer.memory_layer(memory)
        att_h = att_c = memory.new_zeros(B, hp.attention_rnn_dim)
        dec_h = dec_c = memory.new_zeros(B, hp.decoder_rnn_dim)
        context = memory.new_zeros(B, hp.encoder_embedding_dim)
        mel_outputs, gate_outputs, alignments = [], [], []
        for t in range(decoder_inputs.size(0) - 1):
            att_h, att_c = self.attention_rnn(torch.cat((prenet_out[t], context), -1), (att_h, att_c))
            context, weights = self.attention_layer(att_h, memory, processed_memory)
            dec_h, dec_c = self.decoder_rnn(torch.cat((att_h, context), -1), (dec_h, dec_c))
            hidden_context = torch.cat((dec_h, context), dim=1)
            mel_outputs.append(self.linear_projection(hidden_context))
            gate_outputs.append(self.gate_layer(hidden_context).squeeze(1))
            alignments.append(weights)
        return (torch.stack(mel_outputs, 2), torch.stack(gate_outputs, 1), torch.stack(alignments, 1))


class Tacotron2(nn.Module):
    def __init__(self, hp):
        super().__init__()
        self.embedding = nn.Embedding(hp.n_symbols, hp.symbols_embedding_dim)
        self.encoder = Encoder(hp)
        self.decoder = Decoder(hp)
        self.postnet = nn.Sequential(nn.Conv1d(hp.n_mel_channels, hp.postnet_embedding_dim, 5, padding=2), nn.Tanh(),
                                     nn.Conv1d(hp.postnet_embedding_dim, hp.n_mel_channels, 5, padding=2))

    def forward(self, text, mels):
        embedded = self.embedding(text).transpose(1, 2)
        memory = self.encoder(embedded)
        mel_outputs, gate_outputs, alignments = self.decoder(memory, mels)
        mel_outputs_postnet = mel_outputs + self.postnet(mel_outputs)
        return mel_outputs, mel_outputs_postnet, gate_outputs, alignments


class Tacotron2Loss(nn.Module):
    def forward(self, model_output, targets):
        mel_target, gate_target = targets
        mel_out, mel_out_postnet, gate_out, _ = model_output
        mel_loss = F.mse_loss(mel_out, mel_target) + F.mse_loss(mel_out_postnet, mel_target)
        gate_loss = F.binary_cross_entropy_with_logits(gate_out, gate_target)
        return mel_loss + gate_loss, {"mel": mel_loss, "gate": gate_loss}


class ScalarWriter:
    """Tiny in-memory stand-in for a SummaryWriter: keeps every (step, value) it is given."""

    def __init__(self, logdir):
        self.logdir = logdir
        self.scalars = defaultdict(list)
        self.images = {}

    def add_scalar(self, tag, value, step):
        self.scalars[tag].append((step, value))

    def add_image(self, tag, img, step):
        self.images[tag] = (step, img)


class Tacotron2Logger(ScalarWriter):
    def log_training(self, reduced_loss, loss_terms, grad_norm, learning_rate, duration, iteration):
        self.add_scalar("training.loss", reduced_loss, iteration)
        for name, value in loss_terms.items():
            self.add_scalar(f"training.{name}_loss", value, iteration)  # TLK102
        self.add_scalar("grad.norm", grad_norm, iteration)
        self.add_scalar("learning.rate", learning_rate, iteration)
        self.add_scalar("duration", duration, iteration)

    def log_validation(self, reduced_loss, y, y_pred, iteration):
        self.add_scalar("validation.loss", reduced_loss, iteration)
        _, mel_outputs, gate_outputs, alignments = y_pred
        idx = random.randint(0, alignments.size(0) - 1)
        self.add_image("alignment", alignments[idx].data.cpu().T, iteration)
        self.add_image("gate", torch.sigmoid(gate_outputs[idx]).data.cpu(), iteration)


def make_batches(n_batches, hp=None, seed=0):
    hp = hp or HParams()
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n_batches):
        text = torch.randint(1, hp.n_symbols, (hp.batch_size, hp.text_len), generator=g)
        mels = torch.randn(hp.batch_size, hp.n_mel_channels, hp.mel_len, generator=g)
        lengths = torch.randint(hp.mel_len // 2, hp.mel_len + 1, (hp.batch_size,), generator=g)
        gate = (torch.arange(hp.mel_len)[None, :] >= (lengths[:, None] - 1)).float()
        out.append((text, mels, gate))
    return out


def validate(model, criterion, batch, iteration, logger):
    model.eval()
    with torch.no_grad():
        text, mels, gate = batch
        y_pred = model(text, mels)
        loss, _ = criterion(y_pred, (mels, gate))
    model.train()
    logger.log_validation(loss.item(), (mels, gate), y_pred, iteration)


def run(steps):
    torch.manual_seed(0)
    random.seed(0)
    hp = HParams()
    model = Tacotron2(hp)
    criterion = Tacotron2Loss()
    optimizer = torch.optim.Adam(model.parameters(), lr=hp.learning_rate, weight_decay=1e-6)
    logger = Tacotron2Logger("/tmp/tacotron2_logs")
    batches = make_batches(steps + 1, hp)
    val_batch = batches.pop()
    model.train()
    for iteration, (text, mels, gate) in enumerate(batches):
        start = time.perf_counter()
        model.zero_grad()
        y_pred = model(text, mels)
        loss, terms = criterion(y_pred, (mels, gate))
        reduced_loss = loss.item()
        loss.backward()
        grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), hp.grad_clip_thresh)
        optimizer.step()
        duration = time.perf_counter() - start
        logger.log_training(reduced_loss, terms, grad_norm, hp.learning_rate, duration, iteration)
        if iteration % hp.iters_per_checkpoint == 0:
            validate(model, criterion, val_batch, iteration, logger)
    return {"model": model, "logger": logger}


if __name__ == "__main__":
    run(10)
