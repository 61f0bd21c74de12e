# Source: https://github.com/huggingface/transformers/pull/6999
# Shape: a Trainer-style loop with outputs = model(**inputs); loss = outputs.loss; after backward the loss tensor is added to tr_loss, which lives for the whole run and pins every step's graph nodes.
# Verdict: leak
import torch


class TinyTrainer:
    def __init__(self, model, optimizer, scheduler, args):
        self.model = model
        self.optimizer = optimizer
        self.scheduler = scheduler
        self.args = args

    def training_step(self, inputs):
        self.model.train()
        outputs = self.model(**inputs)
        loss = outputs.loss
        if self.args.gradient_accumulation_steps > 1:
            loss = loss / self.args.gradient_accumulation_steps
        loss.backward()
        return loss

    def train(self, train_dataloader):
        tr_loss = torch.tensor(0.0).to(self.args.device)
        logging_loss = 0.0
        global_step = 0
        for epoch in range(self.args.num_train_epochs):
            for step, inputs in enumerate(train_dataloader):
                inputs = {k: v.to(self.args.device) for k, v in inputs.items()}
                step_loss = self.training_step(inputs)
                tr_loss += step_loss  # TLK101
                if (step + 1) % self.args.gradient_accumulation_steps == 0:
                    torch.nn.utils.clip_grad_norm_(self.model.parameters(), self.args.max_grad_norm)
                    self.optimizer.step()
                    self.scheduler.step()
                    self.model.zero_grad()
                    global_step += 1
                    if global_step % self.args.logging_steps == 0:
                        print({"loss": (tr_loss.item() - logging_loss) / self.args.logging_steps})
                        logging_loss = tr_loss.item()
        return global_step, tr_loss.item() / max(global_step, 1)
