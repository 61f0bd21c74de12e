# Source: https://github.com/huggingface/transformers/issues/8396
# Shape: the fine-tuning loop sums the attached batch loss into total_train_loss and stores total_train_loss / print_interval in training_stats, so every batch's graph stays reachable from the stats list for the rest of training.
# Verdict: leak
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


class Config:
    vocab_size = 120
    max_len = 24
    hidden = 32
    heads = 4
    layers = 2
    num_labels = 3
    batch_size = 16
    lr = 2e-3
    warmup_steps = 4
    print_interval = 5
    max_grad_norm = 1.0
    use_amp = torch.cuda.is_available()


class TinyBertForSequenceClassification(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.embeddings = nn.Embedding(cfg.vocab_size, cfg.hidden, padding_idx=0)
        self.position_embeddings = nn.Embedding(cfg.max_len, cfg.hidden)
        self.layer_norm = nn.LayerNorm(cfg.hidden)
        layer = nn.TransformerEncoderLayer(cfg.hidden, cfg.heads, dim_feedforward=cfg.hidden * 2,
                                           dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.pooler = nn.Linear(cfg.hidden, cfg.hidden)
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(cfg.hidden, cfg.num_labels)
        self.num_labels = cfg.num_labels

    def forward(self, input_ids, attention_mask, labels=None):
        pos = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        h = self.layer_norm(self.embeddings(input_ids) + self.position_embeddings(pos))
        h = self.encoder(h, src_key_padding_mask=attention_mask == 0)
        pooled = torch.tanh(self.pooler(h[:, 0]))
        logits = self.classifier(self.dropout(pooled))
        loss = None
        if labels is not None:
            loss = F.cross_entropy(logits.view(-1, self.num_labels), labels.view(-1))
        return loss, logits


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, cfg):
    g = torch.Generator().manual_seed(seed)
    lengths = torch.randint(8, cfg.max_len + 1, (cfg.batch_size,), generator=g)
    input_ids = torch.randint(1, cfg.vocab_size, (cfg.batch_size, cfg.max_len), generator=g)
    attention_mask = (torch.arange(cfg.max_len).unsqueeze(0) < lengths.unsqueeze(1)).long()
    input_ids = input_ids * attention_mask
    labels = torch.randint(0, cfg.num_labels, (cfg.batch_size,), generator=g)
    return input_ids, attention_mask, labels


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(current_step):
        if current_step < num_warmup_steps:
            return float(current_step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - current_step) / float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


def format_time(elapsed):
    return str(round(elapsed, 2))


def train(model, train_data_loader, cfg, epochs=1):
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg.lr, eps=1e-8)
    num_batch = len(train_data_loader)
    scheduler = get_linear_schedule_with_warmup(optimizer, cfg.warmup_steps, num_batch * epochs)
    scaler = torch.amp.GradScaler("cuda", enabled=cfg.use_amp)
    training_stats = []
    print_interval = cfg.print_interval

    for epoch_i in range(epochs):
        # Reset the total loss for this epoch.
        total_train_loss = 0
        t_train = time.time()
        model.train()

        for step, seed in enumerate(train_data_loader):
            # Progress update every print_interval batches.
            if step % print_interval == 0 and not step == 0:
                elapsed = format_time(time.time() - t_train)
                avg_train_loss = total_train_loss / print_interval
                total_train_loss = 0
                training_stats.append(
                    {
                        "epoch": epoch_i + 1,
                        "step": step,
                        "train loss": avg_train_loss,
                        "elapsed": elapsed,
                    }
                )

            b_input_ids, b_input_mask, b_labels = (t.to(device) for t in load_batch(seed, cfg))
            model.zero_grad()
            with torch.autocast(device_type=device.type, enabled=cfg.use_amp):
                loss, logits = model(b_input_ids, attention_mask=b_input_mask, labels=b_labels)

            # Accumulate the training loss over all of the batches so that we can
            # calculate the average loss at the end.
            total_train_loss += loss  # TLK101

            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.max_grad_norm)
            scaler.step(optimizer)
            scaler.update()
            scheduler.step()

        training_stats.append({"epoch": epoch_i + 1, "step": num_batch, "train loss": total_train_loss / max(1, num_batch % print_interval or print_interval)})
    return training_stats


def run(batches):
    cfg = Config()
    model = TinyBertForSequenceClassification(cfg)
    return train(model, batches, cfg)
