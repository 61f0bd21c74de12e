# The training functions of egs/librispeech/ASR/conformer_ctc/train.py (compute_loss,
# compute_validation_loss, train_one_epoch); torch's ctc_loss stands in for k2.ctc_loss.
import logging
from typing import Optional, Tuple

import torch
import torch.nn as nn
from torch import Tensor
from torch.nn.utils import clip_grad_norm_

from icefall_lite.checkpoint import update_averaged_model
from icefall_lite.utils import AttributeDict, MetricsTracker, encode_supervisions


class BpeCtcTrainingGraphCompiler:
    """Stand-in for icefall.bpe_graph_compiler: token ids are already integers here."""

    def __init__(self, device, sos_id: int = 1, eos_id: int = 1):
        self.device = device
        self.sos_id = sos_id
        self.eos_id = eos_id

    def texts_to_ids(self, texts):
        return [list(t) for t in texts]


def ctc_loss_from_segments(nnet_output: Tensor, supervision_segments: Tensor, token_ids, reduction="sum"):
    """k2.ctc_loss over `supervision_segments` (sorted by decreasing length)."""
    log_probs = nnet_output[supervision_segments[:, 0].long()]  # (N, T, C), sorted
    input_lengths = supervision_segments[:, 2].long().clamp(max=nnet_output.size(1))
    targets = torch.tensor([t for utt in token_ids for t in utt], dtype=torch.long)
    target_lengths = torch.tensor([len(utt) for utt in token_ids], dtype=torch.long)
    return nn.functional.ctc_loss(log_probs.permute(1, 0, 2), targets, input_lengths, target_lengths,
                                  blank=0, reduction=reduction, zero_infinity=True)


def compute_loss(
    params: AttributeDict,
    model: nn.Module,
    batch: dict,
    graph_compiler: BpeCtcTrainingGraphCompiler,
    is_training: bool,
) -> Tuple[Tensor, MetricsTracker]:
    """
    Compute CTC loss given the model and its inputs.

    Args:
      is_training:
        True for training. False for validation. When it is True, this
        function enables autograd during computation; when it is False, it
        disables autograd.
    """
    device = graph_compiler.device
    feature = batch["inputs"]
    # at entry, feature is (N, T, C)
    assert feature.ndim == 3
    feature = feature.to(device)

    supervisions = batch["supervisions"]
    with torch.set_grad_enabled(is_training):
        nnet_output, encoder_memory, memory_mask = model(feature, supervisions)
        # nnet_output is (N, T, C)

    # NOTE: We need `encode_supervisions` to sort sequences with
    # different duration in decreasing order
    supervision_segments, texts = encode_supervisions(supervisions, subsampling_factor=params.subsampling_factor)

    token_ids = graph_compiler.texts_to_ids(texts)

    with torch.set_grad_enabled(is_training):
        ctc_loss = ctc_loss_from_segments(nnet_output, supervision_segments, token_ids, reduction=params.reduction)

    if params.att_rate != 0.0:
        # the attention decoder sees the utterances in their original order
        token_ids_orig = graph_compiler.texts_to_ids(supervisions["text"])
        with torch.set_grad_enabled(is_training):
            att_loss = model.decoder_forward(
                encoder_memory,
                memory_mask,
                token_ids=token_ids_orig,
                sos_id=graph_compiler.sos_id,
                eos_id=graph_compiler.eos_id,
            )
        loss = (1.0 - params.att_rate) * ctc_loss + params.att_rate * att_loss
    else:
        loss = ctc_loss
        att_loss = torch.tensor([0])

    assert loss.requires_grad == is_training

    info = MetricsTracker()
    info["frames"] = supervision_segments[:, 2].sum().item()
    info["ctc_loss"] = ctc_loss.detach().cpu().item()
    if params.att_rate != 0.0:
        info["att_loss"] = att_loss.detach().cpu().item()

    info["loss"] = loss.cpu()  # expect: TLK101

    return loss, info


def compute_validation_loss(
    params: AttributeDict,
    model: nn.Module,
    graph_compiler: BpeCtcTrainingGraphCompiler,
    valid_dl,
    world_size: int = 1,
) -> MetricsTracker:
    """Run the validation process."""
    model.eval()

    tot_loss = MetricsTracker()

    for batch_idx, batch in enumerate(valid_dl):
        loss, loss_info = compute_loss(
            params=params,
            model=model,
            batch=batch,
            graph_compiler=graph_compiler,
            is_training=False,
        )
        assert loss.requires_grad is False
        tot_loss = tot_loss + loss_info

    loss_value = tot_loss["loss"] / tot_loss["frames"]
    if loss_value < params.best_valid_loss:
        params.best_valid_epoch = params.cur_epoch
        params.best_valid_loss = loss_value

    return tot_loss


def train_one_epoch(
    params: AttributeDict,
    model: nn.Module,
    optimizer: torch.optim.Optimizer,
    scheduler,
    graph_compiler: BpeCtcTrainingGraphCompiler,
    train_dl,
    valid_dl,
    model_avg: Optional[nn.Module] = None,
    tb_writer=None,
    world_size: int = 1,
) -> None:
    """Train the model for one epoch.

    The training loss from the mean of all frames is saved in
    `params.train_loss`. It runs the validation process every
    `params.valid_interval` batches.
    """
    model.train()

    tot_loss = MetricsTracker()

    for batch_idx, batch in enumerate(train_dl):
        if params.batch_idx_train >= params.max_steps:
            break
        params.batch_idx_train += 1
        batch_size = len(batch["supervisions"]["text"])

        loss, loss_info = compute_loss(
            params=params,
            model=model,
            batch=batch,
            graph_compiler=graph_compiler,
            is_training=True,
        )
        # summary stats
        tot_loss = (tot_loss * (1 - 1 / params.reset_interval)) + loss_info

        # NOTE: We use reduction==sum and loss is computed over utterances
        # in the batch and there is no normalization to it so far.

        optimizer.zero_grad()
        loss.backward()
        clip_grad_norm_(model.parameters(), 5.0, 2.0)
        optimizer.step()
        scheduler.step_batch(params.batch_idx_train)

        if model_avg is not None and params.batch_idx_train % params.average_period == 0:
            update_averaged_model(params=params, model_cur=model, model_avg=model_avg)

        if batch_idx % params.log_interval == 0:
            logging.info(
                f"Epoch {params.cur_epoch}, "
                f"batch {batch_idx}, loss[{loss_info}], "
                f"tot_loss[{tot_loss}], batch size: {batch_size}"
            )

            if tb_writer is not None:
                loss_info.write_summary(tb_writer, "train/current_", params.batch_idx_train)
                tot_loss.write_summary(tb_writer, "train/tot_", params.batch_idx_train)

        if batch_idx > 0 and batch_idx % params.valid_interval == 0:
            logging.info("Computing validation loss")
            valid_info = compute_validation_loss(
                params=params,
                model=model,
                graph_compiler=graph_compiler,
                valid_dl=valid_dl,
                world_size=world_size,
            )
            model.train()
            logging.info(f"Epoch {params.cur_epoch}, validation: {valid_info}")
            if tb_writer is not None:
                valid_info.write_summary(tb_writer, "train/valid_", params.batch_idx_train)

    loss_value = tot_loss["loss"] / max(tot_loss["frames"], 1)
    params.train_loss = loss_value
    if params.train_loss < params.best_train_loss:
        params.best_train_epoch = params.cur_epoch
        params.best_train_loss = params.train_loss
