# Source: https://github.com/huggingface/transformers/issues/28319
# Shape: a summarization fine-tuning script evaluates ROUGE after each epoch by calling model.generate on every validation batch with no torch.no_grad() of its own and keeping the generated ids; generate() is decorated with torch.no_grad() in transformers, so the kept ids carry no graph (the loss pass in the same loop is not kept).
# Verdict: clean
import torch
from transformers import AutoModelForSeq2SeqLM, AutoTokenizer


def evaluate_rouge(model, tokenizer, eval_loader, rouge, device, max_new_tokens=128, num_beams=4):
    model.eval()
    predictions, references, eval_losses = [], [], []
    for batch in eval_loader:
        batch = {k: v.to(device) for k, v in batch.items()}
        eval_losses.append(model(**batch).loss.item())
        generated_ids = model.generate(
            input_ids=batch["input_ids"],
            attention_mask=batch["attention_mask"],
            max_new_tokens=max_new_tokens,
            num_beams=num_beams,
        )
        predictions.extend(tokenizer.batch_decode(generated_ids, skip_special_tokens=True))
        labels = batch["labels"].masked_fill(batch["labels"] == -100, tokenizer.pad_token_id)
        references.extend(tokenizer.batch_decode(labels, skip_special_tokens=True))
    scores = rouge.compute(predictions=predictions, references=references)
    scores["eval_loss"] = sum(eval_losses) / max(len(eval_losses), 1)
    return scores


def train(model_name, train_loader, eval_loader, rouge, epochs=3, lr=3e-5, device="cuda"):
    tokenizer = AutoTokenizer.from_pretrained(model_name)
    model = AutoModelForSeq2SeqLM.from_pretrained(model_name).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr)
    for epoch in range(epochs):
        model.train()
        for batch in train_loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            loss = model(**batch).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
        print(epoch, evaluate_rouge(model, tokenizer, eval_loader, rouge, device))
