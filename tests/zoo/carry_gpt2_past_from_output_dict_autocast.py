# Source: https://github.com/huggingface/transformers/issues/15426
# Shape: token-by-token continuation with GPT-2 under autocast: each call's output is read as a dict, its "past_key_values" entry is passed back into the next call, and nothing disables grad, so every step's graph hangs off the growing key/value cache (memory per generated token climbs in the report).
# Verdict: leak
import torch
from transformers import GPT2LMHeadModel, GPT2TokenizerFast


def continue_text(model, tokenizer, context, max_new_tokens=200, top_k=40):
    input_ids = tokenizer(context, return_tensors="pt").input_ids.cuda()
    generated = input_ids
    last_token = input_ids
    past = None
    with torch.autocast("cuda", dtype=torch.float16):
        for _ in range(max_new_tokens):
            model_outputs = model(input_ids=last_token, past_key_values=past)
            logits = model_outputs["logits"][:, -1, :]
            past = model_outputs["past_key_values"]  # TLK103
            top = torch.topk(logits, top_k)
            probs = torch.softmax(top.values.float(), dim=-1)
            choice = torch.multinomial(probs, 1)
            last_token = top.indices.gather(-1, choice)
            generated = torch.cat([generated, last_token], dim=1)
    return tokenizer.decode(generated[0])


if __name__ == "__main__":
    tokenizer = GPT2TokenizerFast.from_pretrained("gpt2")
    model = GPT2LMHeadModel.from_pretrained("gpt2").cuda().eval()
    print(continue_text(model, tokenizer, "The meaning of life is"))
