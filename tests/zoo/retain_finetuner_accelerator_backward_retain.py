# Source: https://github.com/huggingface/accelerate/issues/103
# Shape: a text-classification Finetuner class calls accelerator.backward(loss, retain_graph=True) in its per-batch training_step although nothing differentiates the graph again; the retained graph of each step stays alive into the next step's forward pass.
# Verdict: leak
import torch
from accelerate import Accelerator
from transformers import AutoModelForSequenceClassification, get_linear_schedule_with_warmup


class Finetuner:
    def __init__(self, model_name, num_labels, lr=2e-5, num_training_steps=10000):
        self.accelerator = Accelerator(mixed_precision="bf16", gradient_accumulation_steps=2)
        model = AutoModelForSequenceClassification.from_pretrained(model_name, num_labels=num_labels)
        optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
        scheduler = get_linear_schedule_with_warmup(optimizer, 100, num_training_steps)
        self.model, self.optimizer, self.scheduler = self.accelerator.prepare(model, optimizer, scheduler)

    def training_step(self, batch):
        with self.accelerator.accumulate(self.model):
            outputs = self.model(**batch)
            loss = outputs.loss
            self.accelerator.backward(loss, retain_graph=True)  # TLK201
            if self.accelerator.sync_gradients:
                self.accelerator.clip_grad_norm_(self.model.parameters(), 1.0)
            self.optimizer.step()
            self.scheduler.step()
            self.optimizer.zero_grad()
        return loss.detach().float()

    def fit(self, train_dataloader, epochs):
        train_dataloader = self.accelerator.prepare(train_dataloader)
        for epoch in range(epochs):
            self.model.train()
            epoch_loss = 0.0
            for step, batch in enumerate(train_dataloader):
                epoch_loss += self.training_step(batch).item()
            self.accelerator.print(f"epoch {epoch}: {epoch_loss / (step + 1):.4f}")
