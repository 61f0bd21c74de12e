from collections import OrderedDict

import torch
from torch import nn


class FeatureEmbedding(nn.Module):
    def __init__(self, feature_map, embedding_dim, embedding_initializer="partial(nn.init.normal_, std=1e-4)",
                 required_feature_columns=None, not_required_feature_columns=None):
        super(FeatureEmbedding, self).__init__()
        self.embedding_layer = FeatureEmbeddingDict(feature_map, embedding_dim,
                                                    required_feature_columns=required_feature_columns,
                                                    not_required_feature_columns=not_required_feature_columns)

    def forward(self, X, feature_source=[], feature_type=[], flatten_emb=False):
        feature_emb_dict = self.embedding_layer(X, feature_source=feature_source, feature_type=feature_type)
        feature_emb = self.embedding_layer.dict2tensor(feature_emb_dict, flatten_emb=flatten_emb)
        return feature_emb


class FeatureEmbeddingDict(nn.Module):
    def __init__(self, feature_map, embedding_dim, required_feature_columns=None,
                 not_required_feature_columns=None):
        super(FeatureEmbeddingDict, self).__init__()
        self._feature_map = feature_map
        self.required_feature_columns = required_feature_columns
        self.not_required_feature_columns = not_required_feature_columns
        self.embedding_layers = nn.ModuleDict()
        for feature, feature_spec in self._feature_map.features.items():
            if self.is_required(feature) and feature_spec["type"] == "categorical":
                feat_dim = feature_spec.get("embedding_dim", embedding_dim)
                padding_idx = feature_spec.get("padding_idx", None)
                self.embedding_layers[feature] = nn.Embedding(feature_spec["vocab_size"], feat_dim,
                                                              padding_idx=padding_idx)
        self.reset_parameters()

    def reset_parameters(self):
        for k, v in self.embedding_layers.items():
            nn.init.normal_(v.weight, std=1e-2)

    def is_required(self, feature):
        feature_spec = self._feature_map.features[feature]
        if feature_spec["type"] == "meta":
            return False
        elif self.required_feature_columns and (feature not in self.required_feature_columns):
            return False
        elif self.not_required_feature_columns and (feature in self.not_required_feature_columns):
            return False
        return True

    def dict2tensor(self, embedding_dict, flatten_emb=False):
        feature_emb_list = list(embedding_dict.values())
        if flatten_emb:
            return torch.cat(feature_emb_list, dim=-1)
        return torch.stack(feature_emb_list, dim=1)

    def forward(self, inputs, feature_source=[], feature_type=[]):
        feature_emb_dict = OrderedDict()
        for feature in inputs.keys():
            if feature in self.embedding_layers:
                feature_emb_dict[feature] = self.embedding_layers[feature](inputs[feature].long())
        return feature_emb_dict
