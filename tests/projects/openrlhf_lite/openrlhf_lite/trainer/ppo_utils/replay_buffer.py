# Modelled on openrlhf/trainer/ppo_utils/replay_buffer.py
import random
from dataclasses import dataclass
from typing import List, Optional

import torch

from openrlhf_lite.models.utils import masked_mean

from .experience_maker import Experience


@dataclass
class BufferItem:
    sequences: torch.Tensor
    action_log_probs: torch.Tensor
    base_action_log_probs: torch.Tensor
    values: torch.Tensor
    returns: torch.Tensor
    advantages: torch.Tensor
    attention_mask: Optional[torch.LongTensor]
    action_mask: Optional[torch.BoolTensor]
    info: Optional[dict]


def split_experience_batch(experience: Experience) -> List[BufferItem]:
    batch_size = len(experience.sequences)
    batch_kwargs = [{} for _ in range(batch_size)]
    keys = ("sequences", "action_log_probs", "base_action_log_probs", "values", "returns",
            "advantages", "attention_mask", "action_mask")
    for key in keys:
        value = getattr(experience, key)
        vals = torch.unbind(value)
        for i, v in enumerate(vals):
            batch_kwargs[i][key] = v
    for i in range(batch_size):
        batch_kwargs[i]["info"] = {}
    for k, v in experience.info.items():
        vals = torch.unbind(v)
        for i, vv in enumerate(vals):
            batch_kwargs[i]["info"][k] = vv
    return [BufferItem(**kwargs) for kwargs in batch_kwargs]


def make_experience_batch(items: List[BufferItem]) -> Experience:
    kwargs = {}
    keys = ("sequences", "action_log_probs", "base_action_log_probs", "values", "returns",
            "advantages", "attention_mask", "action_mask")
    for key in keys:
        kwargs[key] = torch.stack([getattr(item, key) for item in items])
    kwargs["info"] = {}
    for key in items[0].info.keys():
        kwargs["info"][key] = torch.tensor([item.info[key] for item in items])
    return Experience(**kwargs)


class NaiveReplayBuffer:
    """Naive replay buffer class. It stores experience."""

    def __init__(self, sample_batch_size: int, limit: int = 0, cpu_offload: bool = True):
        super().__init__()
        self.sample_batch_size = sample_batch_size
        # limit <= 0 means unlimited
        self.limit = limit
        self.cpu_offload = cpu_offload
        self.target_device = torch.device("cpu")
        self.items: List[BufferItem] = []

    @torch.no_grad()
    def append(self, experience: Experience) -> None:
        if self.cpu_offload:
            experience.to_device(torch.device("cpu"))
        items = split_experience_batch(experience)
        self.items.extend(items)
        if self.limit > 0:
            samples_to_remove = len(self.items) - self.limit
            if samples_to_remove > 0:
                self.items = self.items[samples_to_remove:]

    def clear(self) -> None:
        self.items.clear()

    @torch.no_grad()
    def sample(self) -> Experience:
        items = random.sample(self.items, self.sample_batch_size)
        return make_experience_batch(items)

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, idx: int) -> BufferItem:
        return self.items[idx]

    def collate_fn(self, batch) -> Experience:
        return make_experience_batch(batch)

    def normalize(self, attribute: str, strategy) -> None:
        assert attribute == "advantages"
        items = []
        action_masks = []
        for item in self:
            items.append(getattr(item, attribute))
            action_masks.append(item.action_mask)

        items_vector = torch.cat(items).float().flatten()
        action_masks_vector = torch.cat(action_masks).flatten()

        # for DP: mean
        sum_and_count = torch.tensor([items_vector.sum(), action_masks_vector.sum()], device=items_vector.device)
        all_sum, all_count = strategy.all_reduce(sum_and_count, "sum")
        mean = all_sum / all_count
        # std
        std = ((items_vector - mean).pow(2) * action_masks_vector).sum()
        all_std = strategy.all_reduce(std, "sum")
        rstd = (all_std / all_count).clamp(min=1e-8).rsqrt()

        for i, item in enumerate(self):
            setattr(item, attribute, (items[i] - mean) * rstd)
