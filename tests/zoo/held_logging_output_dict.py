# Source: https://github.com/facebookresearch/fairseq/issues/2255
# Shape: a criterion returns a logging dict that holds the attached loss; the training loop keeps every step's logging dict for later aggregation, so each step's graph is retained.
# Verdict: leak
import torch
import torch.nn.functional as F


def masked_lm_criterion(model, sample):
    logits = model(sample["net_input"])
    targets = sample["target"]
    mask = targets.ne(1)
    loss = F.cross_entropy(logits[mask], targets[mask], reduction="sum")
    sample_size = int(mask.sum())
    logging_output = {"loss": loss, "ntokens": sample["ntokens"], "sample_size": sample_size}
    return loss, sample_size, logging_output


def train(model, optimizer, epoch_itr, log_interval=100):
    logging_outputs = []
    for i, sample in enumerate(epoch_itr):
        optimizer.zero_grad()
        loss, sample_size, logging_output = masked_lm_criterion(model, sample)
        (loss / sample_size).backward()
        optimizer.step()
        logging_outputs.append(logging_output)  # TLK102
        if (i + 1) % log_interval == 0:
            total = sum(float(log["loss"]) for log in logging_outputs)
            tokens = sum(log["sample_size"] for log in logging_outputs)
            print(f"step {i + 1}: loss/token {total / tokens:.3f}")
    return logging_outputs
