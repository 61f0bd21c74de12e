# Source: https://github.com/huggingface/accelerate/blob/main/examples/nlp_example.py
# Shape: an accelerate loop that tracks the epoch loss with loss.detach().float(); the evaluation pass runs under torch.no_grad().
# Verdict: clean
import torch
from accelerate import Accelerator


def training_function(model, optimizer, lr_scheduler, train_loader, eval_loader, num_epochs, metric):
    accelerator = Accelerator()
    model, optimizer, train_loader, eval_loader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_loader, eval_loader, lr_scheduler
    )
    for epoch in range(num_epochs):
        model.train()
        total_loss = 0
        for batch in train_loader:
            outputs = model(**batch)
            loss = outputs.loss
            total_loss += loss.detach().float()
            accelerator.backward(loss)
            optimizer.step()
            lr_scheduler.step()
            optimizer.zero_grad()

        model.eval()
        eval_loss = 0
        for batch in eval_loader:
            with torch.no_grad():
                outputs = model(**batch)
            eval_loss += outputs.loss
            predictions = outputs.logits.argmax(dim=-1)
            predictions, references = accelerator.gather_for_metrics((predictions, batch["labels"]))
            metric.add_batch(predictions=predictions, references=references)
        accelerator.print(epoch, total_loss.item() / len(train_loader), eval_loss.item(), metric.compute())
