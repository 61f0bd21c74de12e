from typing import Any, Dict


class PromptBatch(dict):
    """Batch of tokenized prompts (``input_ids``, ``attention_mask`` + metadata), attribute access allowed."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    @classmethod
    def from_dict(cls, d: Dict[str, Any]) -> "PromptBatch":
        return cls(d)
