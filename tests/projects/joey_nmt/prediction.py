import math

import torch

from helpers import EOS_ID, PAD_ID, sequence_accuracy


def strip_reference(trg_row):
    out = []
    for tok in trg_row[1:].tolist():
        if tok in (EOS_ID, PAD_ID):
            break
        out.append(tok)
    return out


def validate_on_data(model, data, loss_function, searcher):
    """Validation loss/perplexity under no_grad, then beam-search decoding for the sequence accuracy."""
    model.eval()
    total_loss, total_tokens = 0.0, 0
    with torch.no_grad():
        for src, trg in data:
            log_probs = model(src, trg[:, :-1])
            total_loss += loss_function(log_probs, trg[:, 1:])
            total_tokens += int((trg[:, 1:] != PAD_ID).sum())
    hypotheses, references = [], []
    for src, trg in data:
        hyps, _ = searcher(model, src)
        hypotheses.extend(hyps)
        references.extend(strip_reference(row) for row in trg)
    model.train()
    valid_loss = total_loss / max(total_tokens, 1)
    ppl = math.exp(min(float(valid_loss), 50.0))
    return valid_loss, ppl, sequence_accuracy(hypotheses, references), hypotheses
