# Source: https://github.com/axolotl-ai-cloud/axolotl/pull/3240
# Shape: a sampling loop run during training (grad enabled, no no_grad) keeps each step's next-token logits in a list for later inspection; every step's full forward graph stays alive until generation ends.
# Verdict: leak
import torch
import torch.nn.functional as F


def sample_with_scores(lm, prompt_ids, max_new_tokens=128, temperature=0.8):
    lm.eval()
    ids = prompt_ids
    step_logits = []
    for _ in range(max_new_tokens):
        logits = lm(ids[:, -1024:])[:, -1, :] / temperature
        step_logits.append(logits)  # TLK102
        probs = F.softmax(logits, dim=-1)
        next_id = torch.multinomial(probs, num_samples=1)
        ids = torch.cat([ids, next_id], dim=1)
    lm.train()
    return ids, torch.stack(step_logits, dim=1)


def log_samples(lm, prompts, tokenizer, writer, step):
    for prompt in prompts:
        ids, scores = sample_with_scores(lm, tokenizer(prompt, return_tensors="pt").input_ids.cuda())
        writer.add_text("sample", tokenizer.decode(ids[0]), step)
        writer.add_scalar("sample_max_logit", scores.max().item(), step)
