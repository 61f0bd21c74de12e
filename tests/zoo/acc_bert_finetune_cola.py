# Source: http://mccormickml.com/2019/07/22/BERT-fine-tuning/
# Shape: The fine-tuning loop sums the attached loss into total_train_loss (the tutorial uses loss.item()), and the epoch average built from it is stored in training_stats, so the graphs of all batches of the epoch stay chained and reachable after training.
# Verdict: leak
"""BERT fine-tuning for CoLA-style sentence classification, following the
McCormick & Ryan tutorial layout (training_stats list of dicts, format_time,
flat_accuracy, linear warmup schedule, gradient clipping), with a tiny
BERT-like encoder standing in for bert-base-uncased."""
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, MAX_LEN, HIDDEN = 100, 12, 32


class TinyBertForSequenceClassification(nn.Module):
    def __init__(self, num_labels=2):
        super().__init__()
        self.embeddings = nn.Embedding(VOCAB, HIDDEN)
        self.position = nn.Embedding(MAX_LEN, HIDDEN)
        layer = nn.TransformerEncoderLayer(HIDDEN, nhead=4, dim_feedforward=64,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.pooler = nn.Linear(HIDDEN, HIDDEN)
        self.classifier = nn.Linear(HIDDEN, num_labels)

    def forward(self, input_ids, attention_mask=None, labels=None):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.embeddings(input_ids) + self.position(pos)
        pad_mask = attention_mask == 0 if attention_mask is not None else None
        h = self.encoder(h, src_key_padding_mask=pad_mask)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        logits = self.classifier(pooled)
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - step) /
                   float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def flat_accuracy(preds, labels):
    return (preds.argmax(1) == labels).float().mean().item()


def format_time(elapsed):
    return time.strftime("%H:%M:%S", time.gmtime(int(round(elapsed))))


def make_batches(n, batch_size=8, seed=0):
    g = torch.Generator().manual_seed(seed)
    out = []
    for _ in range(n):
        ids = torch.randint(1, VOCAB, (batch_size, MAX_LEN), generator=g)
        lengths = torch.randint(4, MAX_LEN + 1, (batch_size,), generator=g)
        mask = (torch.arange(MAX_LEN)[None] < lengths[:, None]).long()
        ids = ids * mask
        labels = (ids[:, 1] > VOCAB // 2).long()
        out.append((ids, mask, labels))
    return out


def run(steps, epochs=1, accumulation_steps=2):
    torch.manual_seed(0)
    model = TinyBertForSequenceClassification()
    train_dataloader = make_batches(steps, seed=1)
    validation_dataloader = make_batches(2, seed=2)
    optimizer = torch.optim.AdamW(model.parameters(), lr=2e-5 * 100, eps=1e-8)
    total_steps = math.ceil(len(train_dataloader) / accumulation_steps) * epochs
    scheduler = get_linear_schedule_with_warmup(optimizer, 0, total_steps)
    training_stats = []
    total_t0 = time.time()

    for epoch_i in range(epochs):
        print(f"======== Epoch {epoch_i + 1} / {epochs} ========")
        t0 = time.time()
        total_train_loss = 0
        model.train()
        optimizer.zero_grad()
        for step, (b_input_ids, b_input_mask, b_labels) in enumerate(train_dataloader):
            result = model(b_input_ids, attention_mask=b_input_mask, labels=b_labels)
            loss = result["loss"]
            total_train_loss += loss  # TLK101
            (loss / accumulation_steps).backward()
            if (step + 1) % accumulation_steps == 0 or step + 1 == len(train_dataloader):
                torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
                scheduler.step()
                optimizer.zero_grad()
            if step % 5 == 0 and step:
                print(f"  Batch {step:>5,} of {len(train_dataloader):>5,}. loss {loss:.4f}")
        avg_train_loss = total_train_loss / len(train_dataloader)
        training_time = format_time(time.time() - t0)

        model.eval()
        total_eval_accuracy, total_eval_loss = 0, 0
        for b_input_ids, b_input_mask, b_labels in validation_dataloader:
            with torch.no_grad():
                result = model(b_input_ids, attention_mask=b_input_mask, labels=b_labels)
            total_eval_loss += result["loss"].item()
            logits = result["logits"].detach().cpu()
            total_eval_accuracy += flat_accuracy(logits, b_labels)
        avg_val_accuracy = total_eval_accuracy / len(validation_dataloader)
        avg_val_loss = total_eval_loss / len(validation_dataloader)
        print(f"  Accuracy: {avg_val_accuracy:.2f}  Validation Loss: {avg_val_loss:.2f}")
        training_stats.append({
            "epoch": epoch_i + 1,
            "Training Loss": avg_train_loss,
            "Valid. Loss": avg_val_loss,
            "Valid. Accur.": avg_val_accuracy,
            "Training Time": training_time,
        })
    print(f"Total training took {format_time(time.time() - total_t0)}")
    return training_stats


if __name__ == "__main__":
    run(10)
