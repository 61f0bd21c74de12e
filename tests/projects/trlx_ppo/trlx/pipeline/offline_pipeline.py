from typing import Any, Dict, List

import torch
from torch.utils.data import DataLoader

from trlx.data.accelerate_base_datatypes import PromptBatch
from trlx.pipeline import BasePipeline


class PromptPipeline(BasePipeline):
    """Dataloader which is used to supply prompts for either training or evaluation."""

    def __init__(self, prompts: List[str], max_prompt_length: int, tokenizer, add_special_tokens: bool = False):
        super().__init__()
        model_inputs = tokenizer(prompts)
        prompts_tokens = [ids[-max_prompt_length:] for ids in model_inputs["input_ids"]]
        self.tokenizer = tokenizer
        self.max_prompt_length = max_prompt_length
        self.prompts = [{"input_ids": tokens, "attention_mask": [1] * len(tokens)} for tokens in prompts_tokens]

    def __getitem__(self, ix: int):
        return self.prompts[ix]

    def __len__(self) -> int:
        return len(self.prompts)

    def _collate(self, xs: List[Dict[str, Any]]) -> PromptBatch:
        # left padding to a fixed length (tokenizer(..., padding="max_length")): prompts are continued by generation
        max_len = self.max_prompt_length
        input_ids = torch.full((len(xs), max_len), self.tokenizer.pad_token_id, dtype=torch.long)
        attention_mask = torch.zeros((len(xs), max_len), dtype=torch.long)
        for i, x in enumerate(xs):
            n = len(x["input_ids"])
            input_ids[i, max_len - n:] = torch.tensor(x["input_ids"], dtype=torch.long)
            attention_mask[i, max_len - n:] = 1
        return PromptBatch(input_ids=input_ids, attention_mask=attention_mask)

    def create_loader(self, batch_size: int, shuffle=False, sampler=None, drop_last=False) -> DataLoader:
        return DataLoader(self, batch_size=batch_size, collate_fn=self._collate, shuffle=shuffle,
                          sampler=sampler, drop_last=drop_last)
