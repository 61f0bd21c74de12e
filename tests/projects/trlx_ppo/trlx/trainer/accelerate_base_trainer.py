import contextlib
from abc import abstractmethod
from contextlib import contextmanager
from time import time
from typing import Dict, List, Optional, Tuple

import torch

import trlx.utils.logging as logging
from trlx.data.configs import TRLConfig
from trlx.pipeline import MiniBatchIterator
from trlx.trainer import BaseRLTrainer, register_trainer
from trlx.utils import significant
from trlx.utils.modeling import flatten_dict
from trlx.utils.tokenizer import CharTokenizer
from trlx.utils.tracking import Accelerator, InMemoryTracker

logger = logging.get_logger(__name__)


@register_trainer
class AccelerateRLTrainer(BaseRLTrainer):
    """RL model trainer with an `accelerate` based backend"""

    def __init__(self, config, **kwargs):  # noqa: C901
        super().__init__(config, **kwargs)
        self.max_length = config.train.seq_length
        if config.train.minibatch_size:
            assert config.train.batch_size % config.train.minibatch_size == 0, "Minibatch size must divide batch size"
            self.mb_size = config.train.minibatch_size
        else:
            self.mb_size = config.train.batch_size
        self.num_mb = config.train.batch_size // self.mb_size
        self.mb_count = 0

        trackers = [InMemoryTracker(run_name=config.train.project_name)] if config.train.tracker == "memory" else []
        self.accelerator = Accelerator(log_with=trackers)

        self.tokenizer = CharTokenizer(padding_side=config.tokenizer.padding_side)
        self.tokenizer.truncation_side = config.tokenizer.truncation_side

        self.model = self.setup_model()
        self.opt = self.setup_optimizer()
        self.scheduler = self.setup_scheduler()

        if self.accelerator.is_main_process:
            self.accelerator.init_trackers(project_name=self.config.train.project_name,
                                           config=flatten_dict(self.config.to_dict()))

        self.nth_evaluation = 0
        self.generate_sweep_kwarg = None

    def setup_model(self):
        """Returns a model derived from an instance's TRLConfig"""
        model = self.get_arch(self.config)
        return model

    def setup_optimizer(self):
        """Returns an optimizer derived from an instance's TRLConfig"""
        optimizer_class = {"adamw": torch.optim.AdamW, "adam": torch.optim.Adam}[self.config.optimizer.name]
        optimizer = optimizer_class(
            self.model.parameters(),
            **self.config.optimizer.kwargs,
        )
        return optimizer

    def setup_scheduler(self):
        """Returns a learning rate scheduler derived from an instance's TRLConfig"""
        scheduler_class = {"cosine_annealing": torch.optim.lr_scheduler.CosineAnnealingLR,
                           "linear": torch.optim.lr_scheduler.LinearLR}[self.config.scheduler.name]
        scheduler = scheduler_class(self.opt, **self.config.scheduler.kwargs)
        return scheduler

    def decode(self, prompts, samples, prompt_sizes=None, append_eos_token: bool = False
               ) -> Tuple[List[str], List[str], List[str]]:
        """Decodes tensor generations into lists of strings (`samples`, `prompts`, `outputs`)"""
        if prompt_sizes is None:
            # Assuming prompts were left-padded
            prompt_sizes = [prompts.shape[1]] * len(prompts)

        str_samples, str_prompts, str_outputs = [], [], []
        for prompt, sample, prompt_size in zip(prompts, samples, prompt_sizes):
            output_start_ix = prompt_size
            str_prompt = self.tokenizer.decode(prompt[:prompt_size], skip_special_tokens=True)
            str_output = self.tokenizer.decode(sample[output_start_ix:], skip_special_tokens=True)
            trimmed = False
            if self.stop_sequences:
                for stop in self.stop_sequences:
                    stop_ix = str_output.find(stop)
                    if stop_ix >= 0:
                        str_output = str_output[:stop_ix].rstrip()
                        trimmed = True
            if append_eos_token and (
                trimmed or sample[-1] == self.tokenizer.eos_token_id or sample[-1] == self.tokenizer.pad_token_id
            ):
                str_output += self.tokenizer.eos_token
            str_prompts.append(str_prompt)
            str_outputs.append(str_output)
            str_samples.append(str_prompt + str_output)
        return str_samples, str_prompts, str_outputs

    def generate(self, input_ids, attention_mask=None, **kwargs):
        """Generate samples for the experience buffer using method's specific `self.generate_experience_kwargs`"""
        input_ids = input_ids.to(self.accelerator.device)
        if attention_mask is not None:
            attention_mask = attention_mask.to(self.accelerator.device)
        if self.generate_experience_kwargs is not None:
            kwargs = dict(self.generate_experience_kwargs, **kwargs)
        else:
            kwargs = dict(self.generate_kwargs, **kwargs)
        with torch.no_grad():
            return self.accelerator.unwrap_model(self.model).generate(
                input_ids=input_ids, attention_mask=attention_mask, **kwargs
            )

    def generate_eval(self, input_ids, attention_mask=None, **kwargs):
        """Generate samples for evaluation using `self.generate_kwargs`"""
        input_ids = input_ids.to(self.accelerator.device)
        if attention_mask is not None:
            attention_mask = attention_mask.to(self.accelerator.device)
        kwargs = dict(self.generate_kwargs, **kwargs)
        with torch.no_grad():
            return self.accelerator.unwrap_model(self.model).generate(
                input_ids=input_ids, attention_mask=attention_mask, **kwargs
            )

    def add_eval_pipeline(self, eval_pipeline):
        """Adds pipeline from with validation prompts"""
        self.eval_pipeline = eval_pipeline

    def evaluate(self):  # noqa: C901
        """Samples model using `eval_prompts`, computes statistics with `reward_fn` and `metric_fn`"""
        logger.info("Evaluating model")
        stats = {}
        all_samples, all_prompts, all_prompt_sizes = [], [], []
        generate_time = time()
        for prompts in self.eval_dataloader:
            samples = self.generate_eval(prompts["input_ids"], prompts["attention_mask"])
            prompt_sizes = torch.tensor(prompts.input_ids.shape[1]).repeat(len(prompts.input_ids))
            all_samples.extend(samples.tolist())
            all_prompts.extend(prompts.input_ids.tolist())
            all_prompt_sizes.extend(prompt_sizes.tolist())
        stats["time/generate"] = time() - generate_time

        str_samples, str_prompts, str_outputs = self.decode(all_prompts, all_samples, all_prompt_sizes)
        if self.reward_fn:
            rewards = self.reward_fn(samples=str_samples, prompts=str_prompts, outputs=str_outputs,
                                     tokenizer=self.tokenizer)
            rewards = torch.tensor(rewards, dtype=float)
            mean_reward = rewards.mean().item()
            stats["reward/mean"] = mean_reward
        if self.metric_fn:
            metrics = self.metric_fn(samples=str_samples, prompts=str_prompts, outputs=str_outputs)
            mean_metrics = {f"metrics/{k}": torch.as_tensor(xs).mean(-1).item() for k, xs in metrics.items()}
            stats.update(mean_metrics)

        table_title = f"Evaluation #{self.nth_evaluation}"
        for k, x in stats.items():
            if k.startswith("reward") or k.startswith("metrics"):
                table_title += f" {k}: {significant(x)}"
        logger.info(table_title)

        self.nth_evaluation += 1
        return stats

    @contextmanager
    def _accumulate(self):
        # We can't use accelerator.accumulate() since that checks if the dataloader is exhausted
        # and we do exhaust the eval dataloader right before each training loop
        self.mb_count += 1
        assert self.mb_count // self.num_mb <= self.config.train.total_steps, "Beyond total steps, something is wrong"
        if (
            self.mb_count % self.accelerator.gradient_accumulation_steps == 0
            or self.mb_count // self.num_mb >= self.config.train.total_steps
        ):
            context = contextlib.nullcontext
        else:
            context = self.accelerator.no_sync
        with context(self.model):
            yield

    def learn(self):  # noqa: C901
        """Samples batches from `self.store`, updates model and periodically evaluates it on `self.eval_dataloader`"""
        logger.info("Starting training")

        self.prepare_learning()
        self.iter_count = 0
        self.nth_evaluation = 0

        results = self.evaluate()
        self.accelerator.log(results, step=self.iter_count)

        tbar = logging.tqdm(initial=self.iter_count, total=self.total_steps, position=0, leave=True)

        best_reward = -float("inf")
        self.train_losses = []

        # For each epoch
        for _ in range(self.config.train.epochs):
            # For each ppo epoch
            for _ in range(self.n_inner_epochs):
                # We create a new dataloader (so new data ordering and shuffle) each inner epoch
                train_dataloader = self.create_train_dataloader()
                # For each batch
                for minibatch in MiniBatchIterator(train_dataloader, self.mb_size, self.num_mb):
                    forward_time = 0.0
                    backward_time = 0.0
                    stats_accum = []
                    for microbatch in minibatch:
                        with self._accumulate():
                            forward_time -= time()
                            loss, stats = self.loss(microbatch)
                            forward_time += time()
                            backward_time -= time()
                            self.model.train()
                            self.accelerator.backward(loss)
                            self.model.eval()
                            backward_time += time()
                            stats_accum.append(stats)
                            self.train_losses.append(loss)  # expect: TLK102

                    forward_time /= self.num_mb
                    backward_time /= self.num_mb
                    # TODO(Dahoas): Best way to combine stats between mbs?
                    # How does accelerate do it?
                    stats = {key: sum([stats[key] for stats in stats_accum]) / self.num_mb for key in stats_accum[0]}

                    self.opt.step()
                    self.opt.zero_grad()
                    self.scheduler.step()
                    self.iter_count += 1

                    stats["time/forward"] = forward_time
                    stats["time/backward"] = backward_time
                    for group_number, lr in enumerate(self.scheduler.get_last_lr()):
                        stats[f"learning_rate_group_{group_number}"] = lr

                    if self.iter_count % self.config.train.eval_interval == 0 or self.iter_count >= self.total_steps:
                        results = self.evaluate()
                        stats.update(results)
                        if self.config.train.save_best:
                            if stats.get("reward/mean", -float("inf")) > best_reward:
                                best_reward = stats.get("reward/mean")

                    desc = " | ".join(f"{k}: {v:.2f}" for k, v in stats.items() if k.startswith("loss"))
                    tbar.set_description(f"[{desc}]")
                    tbar.update()

                    self.accelerator.log(stats, step=self.iter_count)

                    if self.iter_count >= self.total_steps:
                        self.train_loss = float(sum(self.train_losses)) / len(self.train_losses)
                        return results

                self.post_backward_callback()

            self.post_epoch_callback()
        tbar.close()

    @abstractmethod
    def create_train_dataloader(self):
        """Returns a new dataloader for training."""
        pass

    @abstractmethod
    def get_arch(self, config: TRLConfig):
        """Returns a specific wrapper of the decoder architecture"""
        pass

    @abstractmethod
    def loss(self, batch) -> Tuple[float, Dict]:
        """Compute loss on a batch from `store` and return some statistics"""
        pass

    @abstractmethod
    def prepare_learning(self):
        """Do something before the start of training"""
        pass

    @abstractmethod
    def post_backward_callback(self):
        """Do something after model update"""
        pass

    @abstractmethod
    def post_epoch_callback(self):
        """Do something after a single pass over data from `store`"""
        pass
