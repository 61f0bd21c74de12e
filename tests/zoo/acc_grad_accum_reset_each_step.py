# Source: https://github.com/huggingface/accelerate/blob/main/docs/source/usage_guides/gradient_accumulation.md
# Shape: gradient accumulation written with an explicit accumulator: micro-batch losses are summed, the sum is backwarded and reset at every optimizer step; the logged figure is .item() of it.
# Verdict: clean
import torch


def train(model, optimizer, loss_function, training_dataloader, accumulation_steps=4, device="cuda"):
    model.to(device)
    accumulated = 0.0
    history = []
    for index, (inputs, targets) in enumerate(training_dataloader):
        outputs = model(inputs.to(device))
        accumulated = accumulated + loss_function(outputs, targets.to(device)) / accumulation_steps
        if (index + 1) % accumulation_steps == 0:
            accumulated.backward()
            optimizer.step()
            optimizer.zero_grad()
            history.append(accumulated.item())
            accumulated = 0.0
    return history
