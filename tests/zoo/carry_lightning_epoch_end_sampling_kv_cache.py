# Source: https://github.com/axolotl-ai-cloud/axolotl/pull/3240
# Shape: a LightningModule fine-tuning a causal LM writes sample continuations in on_train_epoch_end, a hook Lightning runs with grad enabled, by a hand-written decoding loop that feeds out.past_key_values back into the model at every new token; the cache carries every decoding step's graph until the loop ends.
# Verdict: leak
import torch
import lightning as L
from transformers import AutoModelForCausalLM, AutoTokenizer


class CausalLMFinetune(L.LightningModule):
    def __init__(self, model_name, prompts, lr=5e-5, max_new_tokens=64):
        super().__init__()
        self.model = AutoModelForCausalLM.from_pretrained(model_name)
        self.tokenizer = AutoTokenizer.from_pretrained(model_name)
        self.prompts = prompts
        self.lr = lr
        self.max_new_tokens = max_new_tokens

    def training_step(self, batch, batch_idx):
        loss = self.model(**batch).loss
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.model.parameters(), lr=self.lr)

    def greedy_continue(self, prompt):
        input_ids = self.tokenizer(prompt, return_tensors="pt").input_ids.to(self.device)
        out = self.model(input_ids=input_ids, use_cache=True)
        past = out.past_key_values
        next_token = out.logits[:, -1:].argmax(dim=-1)
        generated = [next_token]
        for _ in range(self.max_new_tokens - 1):
            out = self.model(input_ids=next_token, past_key_values=past, use_cache=True)
            past = out.past_key_values  # TLK103
            next_token = out.logits[:, -1:].argmax(dim=-1)
            generated.append(next_token)
            if next_token.item() == self.tokenizer.eos_token_id:
                break
        return self.tokenizer.decode(torch.cat(generated, dim=1)[0], skip_special_tokens=True)

    def on_train_epoch_end(self):
        self.model.eval()
        for i, prompt in enumerate(self.prompts):
            text = self.greedy_continue(prompt)
            self.print(f"[epoch {self.current_epoch}] sample {i}: {prompt}{text}")
        self.model.train()
