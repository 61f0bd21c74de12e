# Source: https://github.com/facebookresearch/fairseq/issues/2255
# Shape: the fixed criterion puts loss.data into the logging dict, and the loop appends the dicts and a detached copy of the loss: nothing stored has a graph.
# Verdict: clean
import torch
import torch.nn.functional as F


def masked_lm_criterion(model, sample):
    logits = model(sample["net_input"])
    targets = sample["target"]
    mask = targets.ne(1)
    loss = F.cross_entropy(logits[mask], targets[mask], reduction="sum")
    sample_size = int(mask.sum())
    logging_output = {"loss": loss.data, "ntokens": sample["ntokens"], "sample_size": sample_size}
    return loss, sample_size, logging_output


def train(model, optimizer, epoch_itr):
    logging_outputs = []
    raw_losses = []
    for sample in epoch_itr:
        optimizer.zero_grad()
        loss, sample_size, logging_output = masked_lm_criterion(model, sample)
        (loss / sample_size).backward()
        optimizer.step()
        logging_outputs.append(logging_output)
        raw_losses.append(loss.detach())
    return logging_outputs, torch.stack(raw_losses).mean().item()
