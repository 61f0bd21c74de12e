# Synthetic stand-in for asr_datamodule.py (lhotse K2SpeechRecognitionDataset batches).
import torch


class LibriSpeechAsrDataModule:
    """Yields batches shaped like lhotse's: {"inputs": (N, T, C), "supervisions": {...}}.

    Token ids: 0 = blank, 1 = <sos/eos>, 2.. = BPE pieces.
    """

    def __init__(self, args):
        self.args = args
        g = torch.Generator().manual_seed(args.seed)
        self.train_batches = [self._make_batch(g) for _ in range(args.num_train_batches)]
        self.valid_batches = [self._make_batch(g) for _ in range(args.num_valid_batches)]

    def _make_batch(self, g):
        a = self.args
        n, t, c = a.batch_size, a.max_frames, a.feature_dim
        num_frames = torch.randint(t * 3 // 4, t + 1, (n,), generator=g)
        num_frames[0] = t
        feats = torch.randn(n, t, c, generator=g) * 0.5
        texts = []
        for i in range(n):
            length = int(torch.randint(2, 5, (1,), generator=g))
            toks = torch.randint(2, a.vocab_size, (length,), generator=g).tolist()
            texts.append(toks)
            # a weak, token dependent pattern so that the model can learn something
            for j, tok in enumerate(toks):
                feats[i, j * 8:(j + 1) * 8, tok % c] += 2.0
            feats[i, int(num_frames[i]):] = 0.0
        supervisions = {
            "sequence_idx": torch.arange(n, dtype=torch.int32),
            "start_frame": torch.zeros(n, dtype=torch.int32),
            "num_frames": num_frames.to(torch.int32),
            "text": texts,
        }
        return {"inputs": feats, "supervisions": supervisions}

    def train_dataloaders(self):
        return self.train_batches

    def valid_dataloaders(self):
        return self.valid_batches
