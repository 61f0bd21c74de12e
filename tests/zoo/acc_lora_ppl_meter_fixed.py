# Source: https://github.com/huggingface/peft/issues/832
# Shape: the LoRA fine-tuning loop hands the attached loss to PerplexityMeter.update(), whose running nll_sum += loss * n_tokens keeps every step's graph alive for the whole epoch.
# Verdict: clean
import math
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, HID, T, RANK = 40, 32, 12, 4


class LoraLinear(nn.Module):
    def __init__(self, base: nn.Linear, r=RANK, alpha=8, dropout=0.0):
        super().__init__()
        self.base = base
        self.base.requires_grad_(False)
        self.lora_A = nn.Linear(base.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base.out_features, bias=False)
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = alpha / r
        self.lora_dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling


class TinyDecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj, self.k_proj, self.v_proj, self.o_proj = (nn.Linear(HID, HID) for _ in range(4))
        self.mlp = nn.Sequential(nn.Linear(HID, 2 * HID), nn.GELU(), nn.Linear(2 * HID, HID))
        self.ln1, self.ln2 = nn.LayerNorm(HID), nn.LayerNorm(HID)

    def forward(self, x):
        h = self.ln1(x)
        q, k, v = self.q_proj(h), self.k_proj(h), self.v_proj(h)
        att = (q @ k.transpose(1, 2)) / math.sqrt(HID)
        mask = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool), 1)
        att = att.masked_fill(mask, float("-inf")).softmax(-1)
        x = x + self.o_proj(att @ v)
        return x + self.mlp(self.ln2(x))


class TinyCausalLM(nn.Module):
    def __init__(self, n_layers=2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HID)
        self.layers = nn.ModuleList(TinyDecoderLayer() for _ in range(n_layers))
        self.lm_head = nn.Linear(HID, VOCAB)

    def forward(self, input_ids, labels):
        x = self.embed(input_ids)
        for layer in self.layers:
            x = layer(x)
        logits = self.lm_head(x)
        return F.cross_entropy(logits[:, :-1].reshape(-1, VOCAB), labels[:, 1:].reshape(-1))


def get_peft_model(model, target_modules=("q_proj", "v_proj")):
    model.requires_grad_(False)
    for layer in model.layers:
        for name in target_modules:
            setattr(layer, name, LoraLinear(getattr(layer, name)))
    return model


class PerplexityMeter:
    def __init__(self):
        self.reset()

    def reset(self):
        self.nll_sum, self.n_tokens = 0.0, 0

    def update(self, loss, n_tokens):
        self.nll_sum += loss * n_tokens
        self.n_tokens += n_tokens

    @property
    def ppl(self):
        return math.exp(float(self.nll_sum) / max(self.n_tokens, 1))


def train_epoch(model, optimizer, scaler, batches, meter, grad_accum=2):
    model.train()
    for step, batch in enumerate(batches):
        ids = batch["input_ids"].long()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
            loss = model(ids, ids)
        scaler.scale(loss / grad_accum).backward()
        if (step + 1) % grad_accum == 0:
            scaler.step(optimizer)
            scaler.update()
            optimizer.zero_grad()
        meter.update(loss.item(), ids.numel() - ids.shape[0])
    return meter.ppl


def make_batches(n):
    torch.manual_seed(0)
    return [{"input_ids": torch.randint(0, VOCAB, (4, T), dtype=torch.uint8)} for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = get_peft_model(TinyCausalLM())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=1e-3)
    scaler = torch.amp.GradScaler("cpu", enabled=False)
    meter = PerplexityMeter()
    return train_epoch(model, optimizer, scaler, batches, meter)
