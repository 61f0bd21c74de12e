# Source: https://github.com/ray-project/ray/pull/40940
# Shape: an accelerate fine-tuning loop backwards through accelerator.backward(loss) and then adds the loss tensor itself to loss_sum for the epoch average; loss_sum keeps every step's graph.
# Verdict: leak
import time

import torch
from accelerate import Accelerator


def training_function(model, optimizer, lr_scheduler, train_loader, num_epochs):
    accelerator = Accelerator(gradient_accumulation_steps=1)
    model, optimizer, train_loader, lr_scheduler = accelerator.prepare(
        model, optimizer, train_loader, lr_scheduler
    )
    for epoch in range(num_epochs):
        model.train()
        loss_sum = torch.tensor(0.0, device=accelerator.device)
        fwd_time = 0.0
        for step, batch in enumerate(train_loader):
            with accelerator.accumulate(model):
                t0 = time.time()
                outputs = model(**batch)
                loss = outputs.loss
                fwd_time += time.time() - t0
                accelerator.backward(loss)
                optimizer.step()
                lr_scheduler.step()
                optimizer.zero_grad()
            loss_sum += loss  # TLK101
            if step % 10 == 0:
                accelerator.print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
        mean_loss = loss_sum / (step + 1)
        accelerator.print(f"epoch {epoch} mean loss {mean_loss.item():.4f} fwd {fwd_time:.1f}s")
