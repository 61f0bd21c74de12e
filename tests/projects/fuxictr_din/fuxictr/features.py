from collections import OrderedDict
import logging


class FeatureMap(object):
    def __init__(self, dataset_id, data_dir="."):
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

    def load(self, feature_specs, labels, params=None):
        params = params or {}
        self.labels = list(labels)
        self.default_emb_dim = params.get("embedding_dim", None)
        for name, spec in feature_specs.items():
            self.features[name] = dict(spec)
            self.features[name].setdefault("source", "")
            if spec["type"] != "meta":
                self.num_fields += 1
                self.total_features += spec.get("vocab_size", 0)
        logging.info("Load feature_map: {} fields".format(self.num_fields))

    def sum_emb_out_dim(self):
        output_dim = 0
        for feature, feature_spec in self.features.items():
            if feature_spec["type"] != "meta":
                output_dim += feature_spec.get("embedding_dim", self.default_emb_dim)
        return output_dim
