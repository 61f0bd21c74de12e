# Source: https://github.com/huggingface/transformers/pull/7276
# Shape: a Trainer subclass overrides training_step and returns the raw loss (no .detach()), and train() folds it into the tensor tr_loss with +=, so tr_loss chains every step's graph (all encoder activations) for the whole run.
# Verdict: leak
import math
import random
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB = 100
N_EXAMPLES = 64
SEQ_LEN = 16


@dataclass
class TrainOutput:
    global_step: int
    training_loss: torch.Tensor


@dataclass
class TrainingArguments:
    learning_rate: float = 5e-4
    weight_decay: float = 0.01
    gradient_accumulation_steps: int = 1
    max_grad_norm: float = 1.0
    logging_steps: int = 50
    warmup_steps: int = 2


class MiniBertForSequenceClassification(nn.Module):
    def __init__(self, vocab_size=VOCAB, hidden_size=32, num_labels=2):
        super().__init__()
        self.embeddings = nn.Embedding(vocab_size, hidden_size)
        self.position_embeddings = nn.Embedding(SEQ_LEN, hidden_size)
        self.encoder = nn.TransformerEncoderLayer(hidden_size, nhead=2, dim_feedforward=64,
                                                  dropout=0.1, batch_first=True)
        self.classifier = nn.Linear(hidden_size, num_labels)

    def forward(self, input_ids, attention_mask=None, labels=None):
        pos = torch.arange(input_ids.size(1)).unsqueeze(0)
        hidden = self.embeddings(input_ids) + self.position_embeddings(pos)
        pad_mask = None if attention_mask is None else attention_mask == 0
        hidden = self.encoder(hidden, src_key_padding_mask=pad_mask)
        logits = self.classifier(hidden[:, 0])
        loss = F.cross_entropy(logits, labels) if labels is not None else None
        return {"loss": loss, "logits": logits}


class ToyGlueDataset:
    def __init__(self):
        g = torch.Generator().manual_seed(1)
        self.input_ids = torch.randint(1, VOCAB, (N_EXAMPLES, SEQ_LEN), generator=g)
        self.labels = torch.randint(0, 2, (N_EXAMPLES,), generator=g)

    def __getitem__(self, i):
        return {"input_ids": self.input_ids[i], "labels": self.labels[i]}


def default_data_collator(features):
    batch = {k: torch.stack([f[k] for f in features]) for k in features[0]}
    batch["attention_mask"] = torch.ones_like(batch["input_ids"])
    return batch


def get_linear_schedule_with_warmup(optimizer, num_warmup_steps, num_training_steps):
    def lr_lambda(step):
        if step < num_warmup_steps:
            return float(step) / float(max(1, num_warmup_steps))
        return max(0.0, float(num_training_steps - step) / float(max(1, num_training_steps - num_warmup_steps)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)


class Trainer:
    def __init__(self, model, args, train_dataset, data_collator=default_data_collator):
        self.model = model
        self.args = args
        self.train_dataset = train_dataset
        self.data_collator = data_collator
        self.log_history = []
        self.global_step = 0

    def create_optimizer_and_scheduler(self, num_training_steps):
        no_decay = ["bias", "norm"]
        params = [
            {"params": [p for n, p in self.model.named_parameters() if not any(nd in n for nd in no_decay)],
             "weight_decay": self.args.weight_decay},
            {"params": [p for n, p in self.model.named_parameters() if any(nd in n for nd in no_decay)],
             "weight_decay": 0.0},
        ]
        self.optimizer = torch.optim.AdamW(params, lr=self.args.learning_rate)
        self.lr_scheduler = get_linear_schedule_with_warmup(self.optimizer, self.args.warmup_steps,
                                                            num_training_steps)

    def compute_loss(self, model, inputs):
        outputs = model(**inputs)
        return outputs["loss"]

    def training_step(self, model, inputs):
        model.train()
        loss = self.compute_loss(model, inputs)
        if self.args.gradient_accumulation_steps > 1:
            loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss

    def log(self, logs):
        logs["step"] = self.global_step
        self.log_history.append(logs)

    def get_train_dataloader(self, index_batches):
        for idx in index_batches:
            yield self.data_collator([self.train_dataset[i] for i in idx])

    def train(self, index_batches):
        num_training_steps = len(index_batches) // self.args.gradient_accumulation_steps
        self.create_optimizer_and_scheduler(num_training_steps)
        model = self.model
        tr_loss = torch.tensor(0.0)
        logging_loss_scalar = 0.0
        model.zero_grad()
        for step, inputs in enumerate(self.get_train_dataloader(index_batches)):
            tr_loss += self.training_step(model, inputs)  # TLK101
            if (step + 1) % self.args.gradient_accumulation_steps == 0:
                torch.nn.utils.clip_grad_norm_(model.parameters(), self.args.max_grad_norm)
                self.optimizer.step()
                self.lr_scheduler.step()
                model.zero_grad()
                self.global_step += 1
                if self.global_step % self.args.logging_steps == 0:
                    tr_loss_scalar = tr_loss.item()
                    self.log({"loss": (tr_loss_scalar - logging_loss_scalar) / self.args.logging_steps,
                              "learning_rate": self.lr_scheduler.get_last_lr()[0]})
                    logging_loss_scalar = tr_loss_scalar
        return TrainOutput(self.global_step, tr_loss / max(1, self.global_step))


def make_batches(n):
    rng = random.Random(0)
    return [rng.sample(range(N_EXAMPLES), 8) for _ in range(n)]


def run(batches):
    torch.manual_seed(0)
    model = MiniBertForSequenceClassification()
    trainer = Trainer(model, TrainingArguments(), ToyGlueDataset())
    train_output = trainer.train(batches)
    return train_output


if __name__ == "__main__":
    print(run(make_batches(5)))
