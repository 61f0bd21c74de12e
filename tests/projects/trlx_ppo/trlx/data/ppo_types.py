from dataclasses import dataclass

import torch


@dataclass
class PPORLElement:
    """RLElement for PPO: query/response tokens, sampled logprobs, values and per-token rewards."""

    query_tensor: torch.Tensor
    response_tensor: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor


@dataclass
class PPORLBatch:
    """A batched version of the PPORLElement."""

    query_tensors: torch.Tensor
    response_tensors: torch.Tensor
    logprobs: torch.Tensor
    values: torch.Tensor
    rewards: torch.Tensor
