"""Train DIN with the (trimmed) FuxiCTR BaseModel trainer on a synthetic click log.

Modelled on https://github.com/reczoo/FuxiCTR (model_zoo/DIN/run_expid.py +
fuxictr/pytorch/models/rank_model.py). main(steps) trains one epoch of `steps` batches,
evaluates, and returns a dict.
"""
import logging
import shutil
import tempfile

import torch

from fuxictr.features import FeatureMap
from fuxictr.pytorch.torch_utils import seed_everything
from fuxictr.pytorch.dataloaders import RankDataLoader
from fuxictr.utils import print_to_list
import src as model_zoo

FEATURE_SPECS = {
    "user_id": {"type": "categorical", "vocab_size": 101, "source": "user"},
    "item_id": {"type": "categorical", "vocab_size": 201, "source": "item"},
    "cate_id": {"type": "categorical", "vocab_size": 21, "source": "item"},
    "click_history": {"type": "sequence", "vocab_size": 201, "share_embedding": "item_id",
                      "max_len": 10, "source": "user"},
    "cate_history": {"type": "sequence", "vocab_size": 21, "share_embedding": "cate_id",
                     "max_len": 10, "source": "user"},
}


def build_params(model_root):
    return {
        "model_id": "DIN_tiny_synthetic",
        "dataset_id": "tiny_seq",
        "model": "DIN",
        "model_root": model_root,
        "loss": "binary_crossentropy",
        "metrics": ["logloss", "AUC"],
        "task": "binary_classification",
        "optimizer": "adam",
        "learning_rate": 1.0e-3,
        "embedding_regularizer": 1.0e-6,
        "net_regularizer": 0,
        "batch_size": 128,
        "embedding_dim": 8,
        "dnn_hidden_units": [32, 16],
        "dnn_activations": "ReLU",
        "attention_hidden_units": [16],
        "attention_hidden_activations": "Dice",
        "attention_output_activation": None,
        "attention_dropout": 0,
        "din_target_field": [("item_id", "cate_id")],
        "din_sequence_field": [("click_history", "cate_history")],
        "din_use_softmax": False,
        "net_dropout": 0,
        "batch_norm": False,
        "epochs": 1,
        "shuffle": True,
        "seed": 2019,
        "monitor": "AUC",
        "monitor_mode": "max",
        "verbose": 0,
        "gpu": -1,
    }


def main(steps=10):
    torch.set_num_threads(1)
    model_root = tempfile.mkdtemp(prefix="fuxictr_")
    params = build_params(model_root)
    seed_everything(seed=params["seed"])

    feature_map = FeatureMap(params["dataset_id"])
    feature_map.load(FEATURE_SPECS, labels=["label"], params=params)

    model_class = getattr(model_zoo, params["model"])
    model = model_class(feature_map, **params)
    model.count_parameters()

    train_gen, valid_gen = RankDataLoader(feature_map, stage="train", train_batches=steps,
                                          valid_batches=2, batch_size=params["batch_size"]).make_iterator()
    model.fit(train_gen, validation_data=valid_gen, epochs=params["epochs"])

    logging.info('****** Validation evaluation ******')
    valid_result = model.evaluate(valid_gen)
    logging.info("[Result] " + print_to_list(valid_result))
    shutil.rmtree(model_root, ignore_errors=True)
    return {"model": model, "valid_result": valid_result, "steps": model._total_steps}


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    out = main(10)
    print(out["valid_result"], out["steps"], out["model"]._loss_meter)
