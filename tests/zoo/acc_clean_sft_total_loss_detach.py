# Source: https://github.com/allenai/open-instruct/blob/main/open_instruct/finetune.py
# Shape: LoRA SFT with gradient accumulation where total_loss += loss.detach().float() is the logging accumulator and is reset after each logged step, so no graph is held.
# Verdict: clean
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HID, T, RANK = 40, 32, 12, 4


class LoraLinear(nn.Module):
    def __init__(self, base, r=RANK, alpha=16):
        super().__init__()
        self.base = base.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class TinyLM(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.cell = nn.GRUCell(HID, HID)
        self.proj = nn.Linear(HID, HID)
        self.lm_head = nn.Linear(HID, VOCAB)

    def forward(self, input_ids, labels):
        x = self.embed(input_ids)
        h = x.new_zeros(x.shape[0], HID)
        outs = []
        for t in range(x.shape[1]):
            h = self.cell(x[:, t], h)
            outs.append(self.proj(h))
        logits = self.lm_head(torch.stack(outs, 1))
        shift_logits = logits[..., :-1, :].contiguous()
        shift_labels = labels[..., 1:].contiguous()
        return F.cross_entropy(shift_logits.view(-1, VOCAB), shift_labels.view(-1), reduction="mean")


def main(batches, gradient_accumulation_steps=2, logging_steps=2):
    torch.manual_seed(0)
    model = TinyLM().requires_grad_(False)
    model.proj = LoraLinear(model.proj)
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    total_loss, completed_steps, logs = 0, 0, []
    for step, batch in enumerate(batches):
        ids = batch["input_ids"].long()
        loss = model(ids, ids)
        # We keep track of the loss at each logged step
        total_loss += loss.detach().float()
        (loss / gradient_accumulation_steps).backward()
        if (step + 1) % gradient_accumulation_steps == 0:
            optimizer.step()
            optimizer.zero_grad()
            completed_steps += 1
            if completed_steps % logging_steps == 0:
                avg_loss = total_loss.item() / (gradient_accumulation_steps * logging_steps)
                logs.append(avg_loss)
                total_loss = 0
    return logs


def make_batches(n):
    torch.manual_seed(0)
    return [{"input_ids": torch.randint(0, VOCAB, (4, T), dtype=torch.uint8)} for _ in range(n)]


def run(batches):
    return main(batches)
