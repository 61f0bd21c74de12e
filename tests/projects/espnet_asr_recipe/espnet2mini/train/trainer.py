"""Trainer module (port of espnet2.train.trainer)."""
import dataclasses
import logging
import time
from contextlib import contextmanager
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

import torch

from espnet2mini.torch_utils.device_funcs import to_device
from espnet2mini.train.reporter import Reporter, SubReporter


@contextmanager
def autocast(enabled=True):
    yield


@dataclasses.dataclass
class TrainerOptions:
    ngpu: int
    accum_grad: int
    grad_clip: float
    grad_clip_type: float
    log_interval: Optional[int]
    no_forward_run: bool
    max_epoch: int
    max_steps: Optional[int]


class Trainer:
    """Trainer having a optimizer.

    If you'd like to use multiple optimizers, then inherit this class
    and override the methods if necessary - at least "train_one_epoch()"
    """

    def __init__(self):
        raise RuntimeError("This class can't be instantiated.")

    @classmethod
    def build_options(cls, args) -> TrainerOptions:
        """Build options consumed by train(), eval()"""
        return TrainerOptions(
            ngpu=0,
            accum_grad=args["accum_grad"],
            grad_clip=args["grad_clip"],
            grad_clip_type=2.0,
            log_interval=args["log_interval"],
            no_forward_run=False,
            max_epoch=args["max_epoch"],
            max_steps=args.get("max_steps"),
        )

    @classmethod
    def run(
        cls,
        model: torch.nn.Module,
        optimizers: Sequence[torch.optim.Optimizer],
        schedulers: Sequence[Optional[object]],
        train_iter_factory,
        valid_iter_factory,
        reporter: Reporter,
        trainer_options: TrainerOptions,
    ) -> None:
        """Perform training. This method performs the main process of training."""
        start_epoch = reporter.get_epoch() + 1
        for iepoch in range(start_epoch, trainer_options.max_epoch + 1):
            if iepoch != start_epoch:
                logging.info(f"{iepoch}/{trainer_options.max_epoch}epoch started")
            reporter.set_epoch(iepoch)
            # 1. Train and validation for one-epoch
            with reporter.observe("train") as sub_reporter:
                all_steps_are_invalid = cls.train_one_epoch(
                    model=model,
                    optimizers=optimizers,
                    schedulers=schedulers,
                    iterator=train_iter_factory(iepoch),
                    reporter=sub_reporter,
                    options=trainer_options,
                )

            with reporter.observe("valid") as sub_reporter:
                cls.validate_one_epoch(
                    model=model,
                    iterator=valid_iter_factory(iepoch),
                    reporter=sub_reporter,
                    options=trainer_options,
                )
            logging.info(reporter.log_message())

            # 7. If any updating haven't happened, stops the training
            if all_steps_are_invalid:
                logging.warning(
                    "The gradients at all steps are invalid in this epoch. "
                    f"Something seems wrong. This training was stopped at {iepoch}epoch"
                )
                break

    @classmethod
    def train_one_epoch(
        cls,
        model: torch.nn.Module,
        iterator: Iterable[Tuple[List[str], Dict[str, torch.Tensor]]],
        optimizers: Sequence[torch.optim.Optimizer],
        schedulers: Sequence[Optional[object]],
        reporter: SubReporter,
        options: TrainerOptions,
    ) -> bool:
        accum_grad = options.accum_grad
        grad_clip = options.grad_clip
        grad_clip_type = options.grad_clip_type
        log_interval = options.log_interval
        ngpu = options.ngpu

        if log_interval is None:
            try:
                log_interval = max(len(iterator) // 20, 10)
            except TypeError:
                log_interval = 100

        model.train()
        if getattr(model, "ctc", None) is not None:
            model.ctc.reset_monitor()
        all_steps_are_invalid = True

        start_time = time.perf_counter()
        for iiter, (utt_id, batch) in enumerate(
            reporter.measure_iter_time(iterator, "iter_time"), 1
        ):
            assert isinstance(batch, dict), type(batch)

            batch = to_device(batch, "cuda" if ngpu > 0 else "cpu")

            with autocast(False):
                with reporter.measure_time("forward_time"):
                    retval = model(**batch)

                    # Note(kamo):
                    # Supporting two patterns for the returned value from the model
                    #   a. dict type
                    if isinstance(retval, dict):
                        loss = retval["loss"]
                        stats = retval["stats"]
                        weight = retval["weight"]
                        optim_idx = retval.get("optim_idx")
                    #   b. tuple or list type
                    else:
                        loss, stats, weight = retval
                        optim_idx = None
                    retval = None

                stats = {k: v for k, v in stats.items() if v is not None}
                loss /= accum_grad

            reporter.register(stats, weight)  # known-false: TLK102 (the author marked this leak at another line)

            with reporter.measure_time("backward_time"):
                # NOTE: the OnlineMVN statistics span batches, so the graph of the
                # previous batches must still be there when this loss is backpropagated
                loss.backward(retain_graph=True)  # known-miss: TLK202
            del loss

            if iiter % accum_grad == 0:
                # compute the gradient norm to check if it is normal or not
                grad_norm = torch.nn.utils.clip_grad_norm_(
                    model.parameters(),
                    max_norm=grad_clip,
                    norm_type=grad_clip_type,
                )
                # PyTorch<=1.4, clip_grad_norm_ returns float value
                if not isinstance(grad_norm, torch.Tensor):
                    grad_norm = torch.tensor(grad_norm)

                if not torch.isfinite(grad_norm):
                    logging.warning(
                        f"The grad norm is {grad_norm}. Skipping updating the model."
                    )
                else:
                    reporter.register(
                        {
                            "grad_norm": grad_norm,
                            "clip": torch.where(
                                grad_norm > grad_clip,
                                grad_norm.new_tensor(100),
                                grad_norm.new_tensor(0),
                            ),
                            "loss_scale": 1.0,
                        },
                        not_increment_count=True,
                    )
                    all_steps_are_invalid = False
                    with reporter.measure_time("optim_step_time"):
                        for iopt, (optimizer, scheduler) in enumerate(
                            zip(optimizers, schedulers)
                        ):
                            if optim_idx is not None and iopt != optim_idx:
                                continue
                            optimizer.step()
                            if scheduler is not None:
                                scheduler.step()
                for iopt, optimizer in enumerate(optimizers):
                    if optim_idx is not None and iopt != optim_idx:
                        continue
                    optimizer.zero_grad()

                # Register lr and train/load time[sec/step],
                # where step refers to accum_grad * mini-batch
                reporter.register(
                    dict(
                        {
                            f"optim{i}_lr{j}": pg["lr"]
                            for i, optimizer in enumerate(optimizers)
                            for j, pg in enumerate(optimizer.param_groups)
                            if "lr" in pg
                        },
                        train_time=time.perf_counter() - start_time,
                    ),
                    not_increment_count=True,
                )
                start_time = time.perf_counter()

            # NOTE(kamo): Call log_message() after next()
            reporter.next()
            if iiter % log_interval == 0:
                logging.info(reporter.log_message(-log_interval))
            if options.max_steps is not None and iiter >= options.max_steps:
                break

        if getattr(model, "ctc", None) is not None:
            reporter.register({"blank_ratio": model.ctc.blank_ratio()}, not_increment_count=True)
        return all_steps_are_invalid

    @classmethod
    @torch.no_grad()
    def validate_one_epoch(
        cls,
        model: torch.nn.Module,
        iterator: Iterable[Dict[str, torch.Tensor]],
        reporter: SubReporter,
        options: TrainerOptions,
    ) -> None:
        ngpu = options.ngpu
        model.eval()

        for utt_id, batch in iterator:
            assert isinstance(batch, dict), type(batch)
            batch = to_device(batch, "cuda" if ngpu > 0 else "cpu")
            retval = model(**batch)
            if isinstance(retval, dict):
                stats = retval["stats"]
                weight = retval["weight"]
            else:
                _, stats, weight = retval

            stats = {k: v for k, v in stats.items() if v is not None}
            reporter.register(stats, weight)
            reporter.next()
