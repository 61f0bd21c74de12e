# The shape of an accelerate / Hugging Face no_trainer script, with the two classic slips.
import torch
from accelerate import Accelerator

accelerator = Accelerator()
model, optimizer, train_dataloader, eval_dataloader = accelerator.prepare(model, optimizer, train_dataloader, eval_dataloader)
for epoch in range(num_train_epochs):
    model.train()
    total_loss = 0
    for step, batch in enumerate(train_dataloader):
        outputs = model(**batch)
        loss = outputs.loss
        total_loss += loss.detach().float()
        accelerator.backward(loss)
        optimizer.step()
        lr_scheduler.step()
        optimizer.zero_grad()
    model.eval()
    losses = []
    for step, batch in enumerate(eval_dataloader):
        with torch.no_grad():
            outputs = model(**batch)
        loss = outputs.loss
        losses.append(accelerator.gather_for_metrics(loss.repeat(batch_size)))
    eval_logits = []
    for step, batch in enumerate(eval_dataloader):
        outputs = model(**batch)
        eval_logits.append(outputs.logits)  # TLK102
    train_losses = []
    for batch in train_dataloader:
        loss = model(**batch).loss
        accelerator.backward(loss)
        optimizer.step()
        train_losses.append(loss)  # TLK102
