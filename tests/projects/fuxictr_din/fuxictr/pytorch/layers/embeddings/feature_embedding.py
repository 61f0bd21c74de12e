from collections import OrderedDict

import torch
from torch import nn


class FeatureEmbedding(nn.Module):
    def __init__(self, feature_map, embedding_dim, required_feature_columns=None, not_required_feature_columns=None):
        super(FeatureEmbedding, self).__init__()
        self.embedding_layer = FeatureEmbeddingDict(feature_map, embedding_dim,
                                                    required_feature_columns=required_feature_columns,
                                                    not_required_feature_columns=not_required_feature_columns)

    def forward(self, X, feature_source=[], feature_type=[], flatten_emb=False):
        feature_emb_dict = self.embedding_layer(X, feature_source=feature_source, feature_type=feature_type)
        feature_emb = self.embedding_layer.dict2tensor(feature_emb_dict, flatten_emb=flatten_emb)
        return feature_emb


class FeatureEmbeddingDict(nn.Module):
    def __init__(self, feature_map, embedding_dim, required_feature_columns=None, not_required_feature_columns=None):
        super(FeatureEmbeddingDict, self).__init__()
        self._feature_map = feature_map
        self.required_feature_columns = required_feature_columns
        self.not_required_feature_columns = not_required_feature_columns
        self.embedding_layers = nn.ModuleDict()
        for feature, feature_spec in self._feature_map.features.items():
            if self.is_required(feature):
                feat_dim = feature_spec.get("embedding_dim", embedding_dim)
                if feature_spec["type"] == "categorical" or "share_embedding" not in feature_spec:
                    self.embedding_layers[feature] = nn.Embedding(feature_spec["vocab_size"], feat_dim,
                                                                  padding_idx=feature_spec.get("padding_idx", 0))
        self.reset_parameters()

    def reset_parameters(self):
        for k, v in self.embedding_layers.items():
            nn.init.normal_(v.weight, std=1e-4)
            if v.padding_idx is not None:
                v.weight.data[v.padding_idx, :] = 0

    def is_required(self, feature):
        feature_spec = self._feature_map.features[feature]
        if feature_spec["type"] == "meta":
            return False
        elif self.required_feature_columns and (feature not in self.required_feature_columns):
            return False
        elif self.not_required_feature_columns and (feature in self.not_required_feature_columns):
            return False
        else:
            return True

    def dict2tensor(self, embedding_dict, flatten_emb=False, feature_list=[], feature_source=[],
                    feature_type=[]):
        feature_emb_list = []
        for feature, feature_spec in self._feature_map.features.items():
            if feature in embedding_dict:
                feature_emb_list.append(embedding_dict[feature])
        if flatten_emb:
            feature_emb = torch.cat(feature_emb_list, dim=-1)
        else:
            feature_emb = torch.stack(feature_emb_list, dim=1)
        return feature_emb

    def forward(self, inputs, feature_source=[], feature_type=[]):
        feature_emb_dict = OrderedDict()
        for feature in inputs.keys():
            feature_spec = self._feature_map.features[feature]
            if feature_spec["type"] == "meta":
                continue
            emb_key = feature_spec.get("share_embedding", feature)
            if emb_key in self.embedding_layers:
                embedding_vec = self.embedding_layers[emb_key](inputs[feature].long())
                feature_emb_dict[feature] = embedding_vec
        return feature_emb_dict
