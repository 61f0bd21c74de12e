from .prompts_dataset import PromptDataset, PretrainDataset
