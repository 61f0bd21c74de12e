# Source: https://github.com/pai4451/ML2021/issues/2
# Shape: extractive-QA fine-tuning with accelerate adds the model output's .loss tensor itself to train_loss every step (the span accuracy next to it comes from argmax and carries no graph); the sum is read only at the end of the epoch, so host memory grows with every step's kept graph.
# Verdict: leak
import torch
from accelerate import Accelerator
from transformers import AutoModelForQuestionAnswering


def fine_tune(train_loader, num_epoch=1, lr=1e-4):
    accelerator = Accelerator(mixed_precision="fp16")
    model = AutoModelForQuestionAnswering.from_pretrained("bert-base-chinese")
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    model, optimizer, train_loader = accelerator.prepare(model, optimizer, train_loader)
    model.train()
    for epoch in range(num_epoch):
        step = 0
        train_loss = train_acc = 0
        for data in train_loader:
            output = model(input_ids=data[0], token_type_ids=data[1], attention_mask=data[2],
                           start_positions=data[3], end_positions=data[4])
            start_index = torch.argmax(output.start_logits, dim=1)
            end_index = torch.argmax(output.end_logits, dim=1)
            train_acc += ((start_index == data[3]) & (end_index == data[4])).float().mean()
            train_loss += output.loss  # TLK101
            accelerator.backward(output.loss)
            optimizer.step()
            optimizer.zero_grad()
            step += 1
        print(f"Epoch {epoch + 1} | loss = {train_loss.item() / step:.3f}, acc = {train_acc.item() / step:.3f}")
