# Source: https://github.com/allenai/OLMo/pull/164
# Shape: greedy decoding with a key/value cache run with autograd on: every step's attention graph hangs off the cache that is fed into the next step, so memory climbs with the number of generated tokens until the loop ends (OOM at a few hundred steps in the report)
# Verdict: leak
import torch


def greedy_generate(model, input_ids, max_new_tokens=200, eos_token_id=2):
    model.eval()
    outputs = model(input_ids=input_ids, use_cache=True)
    past = outputs.past_key_values
    next_token = outputs.logits[:, -1].argmax(dim=-1, keepdim=True)
    generated = [next_token]
    for _ in range(max_new_tokens - 1):
        outputs = model(input_ids=next_token, past_key_values=past, use_cache=True)
        past = outputs.past_key_values  # TLK103
        next_token = outputs.logits[:, -1].argmax(dim=-1, keepdim=True)
        generated.append(next_token)
        if (next_token == eos_token_id).all():
            break
    return torch.cat([input_ids] + generated, dim=1)
