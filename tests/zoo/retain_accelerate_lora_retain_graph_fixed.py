# Source: https://github.com/huggingface/accelerate/issues/1044
# Shape: the fix calls accelerator.backward(loss) without retain_graph, so each micro-batch graph is freed by its only backward pass.
# Verdict: clean
import contextlib
import math
import torch
import torch.nn as nn
import torch.nn.functional as F


class Accelerator:
    """Single-process stand-in for accelerate.Accelerator."""

    def __init__(self, gradient_accumulation_steps=1):
        self.gradient_accumulation_steps = gradient_accumulation_steps
        self.step = 0
        self.sync_gradients = True

    def prepare(self, *objs):
        return objs

    @contextlib.contextmanager
    def accumulate(self, model):
        self.step += 1
        self.sync_gradients = self.step % self.gradient_accumulation_steps == 0
        yield

    def backward(self, loss, **kwargs):
        loss = loss / self.gradient_accumulation_steps
        loss.backward(**kwargs)

    def clip_grad_norm_(self, parameters, max_norm):
        if self.sync_gradients:
            return torch.nn.utils.clip_grad_norm_(parameters, max_norm)


class LoraLinear(nn.Module):
    def __init__(self, base_layer, r=8, lora_alpha=16, lora_dropout=0.05):
        super().__init__()
        self.base_layer = base_layer
        self.base_layer.requires_grad_(False)
        self.lora_A = nn.Linear(base_layer.in_features, r, bias=False)
        self.lora_B = nn.Linear(r, base_layer.out_features, bias=False)
        nn.init.kaiming_uniform_(self.lora_A.weight, a=math.sqrt(5))
        nn.init.zeros_(self.lora_B.weight)
        self.scaling = lora_alpha / r
        self.lora_dropout = nn.Dropout(lora_dropout)

    def forward(self, x):
        return self.base_layer(x) + self.lora_B(self.lora_A(self.lora_dropout(x))) * self.scaling


class TinyCausalLM(nn.Module):
    def __init__(self, vocab_size=512, d_model=128, n_layers=3):
        super().__init__()
        self.embed_tokens = nn.Embedding(vocab_size, d_model)
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(nn.ModuleDict({
                "q_proj": nn.Linear(d_model, d_model), "v_proj": nn.Linear(d_model, d_model),
                "up_proj": nn.Linear(d_model, 4 * d_model), "down_proj": nn.Linear(4 * d_model, d_model),
                "norm": nn.LayerNorm(d_model),
            }))
        self.lm_head = nn.Linear(d_model, vocab_size, bias=False)

    def forward(self, input_ids, labels=None):
        h = self.embed_tokens(input_ids)
        T = input_ids.shape[1]
        causal = torch.full((T, T), float("-inf")).triu(1)
        for layer in self.layers:
            x = layer["norm"](h)
            attn = (layer["q_proj"](x) @ x.transpose(1, 2)) / math.sqrt(x.shape[-1]) + causal
            h = h + attn.softmax(-1) @ layer["v_proj"](x)
            h = h + layer["down_proj"](F.gelu(layer["up_proj"](h)))
        logits = self.lm_head(h)
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits[:, :-1].reshape(-1, logits.size(-1)), labels[:, 1:].reshape(-1))
        return {"loss": loss, "logits": logits}


def get_peft_model(model, target_modules=("q_proj", "v_proj")):
    model.requires_grad_(False)
    for layer in model.layers:
        for name in target_modules:
            layer[name] = LoraLinear(layer[name])
    return model


def make_batches(n):
    g = torch.Generator().manual_seed(0)
    batches = []
    for _ in range(n):
        input_ids = torch.randint(0, 512, (4, 64), generator=g)
        batches.append({"input_ids": input_ids, "labels": input_ids.clone()})
    return batches


def run(batches):
    torch.manual_seed(0)
    accelerator = Accelerator(gradient_accumulation_steps=4)
    model = get_peft_model(TinyCausalLM())
    optimizer = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=3e-4)
    lr_scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: min(1.0, (s + 1) / 10))
    model, optimizer, lr_scheduler = accelerator.prepare(model, optimizer, lr_scheduler)
    model.train()
    total_loss = 0.0
    for step, batch in enumerate(batches):
        with accelerator.accumulate(model):
            outputs = model(**batch)
            loss = outputs["loss"]
            total_loss += loss.detach().float().item()
            accelerator.backward(loss)
            accelerator.clip_grad_norm_(model.parameters(), 1.0)
            if accelerator.sync_gradients:
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
    return total_loss / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
