"""Character-level stand-in for a Hugging Face tokenizer (the subset trlx calls)."""
from typing import List


class CharTokenizer:
    def __init__(self, alphabet: str = "abcdefghijklmnopqrstuvwxyz .,!?", padding_side: str = "left"):
        self.pad_token = "<pad>"
        self.eos_token = "<eos>"
        self.itos = [self.pad_token, self.eos_token] + list(alphabet)
        self.stoi = {s: i for i, s in enumerate(self.itos)}
        self.pad_token_id = 0
        self.eos_token_id = 1
        self.padding_side = padding_side
        self.truncation_side = "right"

    @property
    def vocab_size(self) -> int:
        return len(self.itos)

    def encode(self, text: str) -> List[int]:
        return [self.stoi[c] for c in text if c in self.stoi]

    def __call__(self, texts, **kwargs):
        if isinstance(texts, str):
            texts = [texts]
        return _Encoding([self.encode(t) for t in texts])

    def decode(self, ids, skip_special_tokens: bool = True) -> str:
        out = []
        for i in ids:
            i = int(i)
            if skip_special_tokens and i in (self.pad_token_id, self.eos_token_id):
                continue
            out.append(self.itos[i])
        return "".join(out)

    def batch_decode(self, batch, skip_special_tokens: bool = True) -> List[str]:
        return [self.decode(ids, skip_special_tokens) for ids in batch]


class _Encoding(dict):
    def __init__(self, input_ids):
        super().__init__(input_ids=input_ids)
        self.input_ids = input_ids
