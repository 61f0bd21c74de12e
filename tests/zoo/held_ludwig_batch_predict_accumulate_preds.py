# Source: https://github.com/ludwig-ai/ludwig/pull/1739
# Shape: a Predictor's batch_predict() walks the dataset in batches, calls the model's predict() (which returns, per output feature, a dict with the probabilities and the argmax predictions) outside torch.no_grad(), and hands the dict to a helper, _accumulate_preds, that appends every value to per-feature lists; the probabilities are still attached, so the lists keep every batch's forward graph, saved activations included, until the concatenation at the end.
# Verdict: leak
from collections import defaultdict

import torch
import torch.nn as nn


class MultiOutputModel(nn.Module):
    def __init__(self, in_features=64, hidden=512, outputs=(("label", 5), ("intent", 12))):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.decoders = nn.ModuleDict({name: nn.Linear(hidden, n) for name, n in outputs})

    def forward(self, inputs):
        hidden = self.encoder(inputs)
        return {name: decoder(hidden) for name, decoder in self.decoders.items()}

    def predict(self, inputs):
        outputs = {}
        for name, logits in self(inputs).items():
            probabilities = torch.softmax(logits, dim=-1)
            outputs[name] = {"probabilities": probabilities, "predictions": probabilities.argmax(-1)}
        return outputs


class Batcher:
    def __init__(self, dataset, batch_size):
        self.dataset, self.batch_size, self.index = dataset, batch_size, 0

    def last_batch(self):
        return self.index >= self.dataset.size(0)

    def next_batch(self):
        batch = self.dataset[self.index:self.index + self.batch_size]
        self.index += self.batch_size
        return batch


class Predictor:
    def __init__(self, model, batch_size=128):
        self.model = model
        self.batch_size = batch_size

    def batch_predict(self, dataset):
        self.model.eval()
        predictions = defaultdict(lambda: defaultdict(list))
        batcher = Batcher(dataset, self.batch_size)
        while not batcher.last_batch():
            batch = batcher.next_batch()
            preds = self.model.predict(batch)
            self._accumulate_preds(preds, predictions)
        return {of_name: {k: torch.cat(v) for k, v in of_preds.items()} for of_name, of_preds in predictions.items()}

    @staticmethod
    def _accumulate_preds(preds, predictions):
        for of_name, of_preds in preds.items():
            for pred_name, pred_values in of_preds.items():
                predictions[of_name][pred_name].append(pred_values)  # TLK102


if __name__ == "__main__":
    torch.manual_seed(0)
    predictor = Predictor(MultiOutputModel())
    results = predictor.batch_predict(torch.randn(128 * 30, 64))
    print({name: out["predictions"].bincount().tolist() for name, out in results.items()})
