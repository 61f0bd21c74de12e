# Synthetic stand-ins for openrlhf/datasets/prompts_dataset.py and sft_dataset.py (pretrain_data for ptx).
import torch
from torch.utils.data import Dataset


class PromptDataset(Dataset):
    """Already tokenized, left-aligned prompts of a fixed length (token ids >= 2; 0 = pad, 1 = eos)."""

    def __init__(self, num_prompts=64, prompt_len=8, vocab_size=48, seed=0):
        g = torch.Generator().manual_seed(seed)
        self.prompts = torch.randint(2, vocab_size, (num_prompts, prompt_len), generator=g)

    def __len__(self):
        return self.prompts.size(0)

    def __getitem__(self, idx):
        return self.prompts[idx]


class PretrainDataset(Dataset):
    def __init__(self, num_samples=64, seq_len=24, vocab_size=48, seed=1):
        g = torch.Generator().manual_seed(seed)
        self.input_ids = torch.randint(2, vocab_size, (num_samples, seq_len), generator=g)
        self.attention_mask = torch.ones_like(self.input_ids)

    def __len__(self):
        return self.input_ids.size(0)

    def __getitem__(self, idx):
        return None, self.input_ids[idx].unsqueeze(0), self.attention_mask[idx].unsqueeze(0)

    @staticmethod
    def collate_fn(batch):
        ids = torch.stack([b[1] for b in batch])
        mask = torch.stack([b[2] for b in batch])
        return None, ids, mask
