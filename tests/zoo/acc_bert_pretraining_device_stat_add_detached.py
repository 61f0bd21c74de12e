# Source: https://github.com/NVIDIA/DeepLearningExamples/issues/1102
# Shape: BERT pretraining with the fix from the report: the loss is added into the persistent device stat as loss.clone().detach(), so the running average stays on the device without joining any step's graph.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F


class TrainingStats:
    def __init__(self, device):
        self.device = device
        self._device_stats = {}

    def device_stat(self, name):
        if name not in self._device_stats:
            self._device_stats[name] = torch.zeros((), device=self.device)
        return self._device_stats[name]

    def reset(self):
        for value in self._device_stats.values():
            value.zero_()


class TinyBertForPreTraining(nn.Module):
    def __init__(self, vocab=100, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.encoder = nn.TransformerEncoderLayer(hidden, 4, 64, batch_first=True)
        self.mlm = nn.Linear(hidden, vocab)
        self.nsp = nn.Linear(hidden, 2)

    def forward(self, input_ids, mlm_labels, nsp_labels):
        h = self.encoder(self.embed(input_ids))
        mlm_loss = F.cross_entropy(self.mlm(h).flatten(0, 1), mlm_labels.flatten(), ignore_index=-1)
        nsp_loss = F.cross_entropy(self.nsp(h[:, 0]), nsp_labels)
        return mlm_loss + nsp_loss


def take_optimizer_step(optimizer, model, global_step):
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    optimizer.step()
    optimizer.zero_grad(set_to_none=True)
    return global_step + 1


def train(model, optimizer, batches, log_freq=50, device="cpu"):
    stats = TrainingStats(device)
    global_step = 0
    for step, (input_ids, mlm_labels, nsp_labels) in enumerate(batches):
        loss = model(input_ids, mlm_labels, nsp_labels)
        loss.backward()
        stats.device_stat("average_loss").add_(loss.clone().detach())
        global_step = take_optimizer_step(optimizer, model, global_step)
        if global_step % log_freq == 0:
            average_loss = stats.device_stat("average_loss").item() / log_freq
            print(f"step {global_step} average_loss {average_loss:.4f}")
            stats.reset()
    return global_step


def fake_batches(n, batch=4, seq=16, vocab=100):
    return [(torch.randint(0, vocab, (batch, seq)), torch.randint(-1, vocab, (batch, seq)), torch.randint(0, 2, (batch,))) for _ in range(n)]


if __name__ == "__main__":
    model = TinyBertForPreTraining()
    train(model, torch.optim.AdamW(model.parameters(), lr=1e-4), fake_batches(6), log_freq=4)
