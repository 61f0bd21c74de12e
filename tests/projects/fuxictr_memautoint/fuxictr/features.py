import logging
from collections import OrderedDict


class FeatureMap(object):
    def __init__(self, dataset_id, data_dir=""):
        self.data_dir = data_dir
        self.dataset_id = dataset_id
        self.num_fields = 0
        self.total_features = 0
        self.input_length = 0
        self.features = OrderedDict()
        self.labels = []
        self.column_index = dict()
        self.group_id = None
        self.default_emb_dim = None

    def load_dict(self, spec):
        self.labels = list(spec.get("labels", []))
        self.group_id = spec.get("group_id", None)
        self.default_emb_dim = spec.get("default_emb_dim", None)
        for name, feat in spec["features"].items():
            self.features[name] = dict(feat)
        self.set_column_index()
        self.num_fields = sum(1 for f in self.features.values() if f["type"] != "meta")
        self.total_features = sum(f.get("vocab_size", 1) for f in self.features.values())
        logging.info("Load feature_map: %d fields, %d features", self.num_fields, self.total_features)

    def set_column_index(self):
        idx = 0
        for feature in self.features.keys():
            self.column_index[feature] = idx
            idx += 1
        for label in self.labels:
            self.column_index[label] = idx
            idx += 1
        self.input_length = idx

    def sum_emb_out_dim(self):
        return sum(f.get("embedding_dim", self.default_emb_dim) for f in self.features.values()
                   if f["type"] != "meta")
