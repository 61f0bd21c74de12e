"""Collects what the metrics need batch by batch, and computes them at the end of an epoch."""
import torch


class DataStruct:
    def __init__(self):
        self._data_dict = {}

    def __getitem__(self, name):
        return self._data_dict[name]

    def __contains__(self, name):
        return name in self._data_dict

    def update_tensor(self, name, value):
        if name not in self._data_dict:
            self._data_dict[name] = value.cpu()
        else:
            self._data_dict[name] = torch.cat((self._data_dict[name], value.cpu()), dim=0)

    def clear(self):
        self._data_dict = {}


class Collector:
    """Scores of positive and sampled negative pairs, for AUC."""

    def __init__(self):
        self.data_struct = DataStruct()

    def eval_batch_collect(self, pos_scores, neg_scores):
        self.data_struct.update_tensor("rec.pos_score", pos_scores)
        self.data_struct.update_tensor("rec.neg_score", neg_scores)

    def get_data_struct(self):
        collected = self.data_struct
        self.data_struct = DataStruct()
        return collected


def auc(data_struct):
    pos, neg = data_struct["rec.pos_score"], data_struct["rec.neg_score"]
    return (pos.unsqueeze(1) > neg.unsqueeze(0)).float().mean().item()
