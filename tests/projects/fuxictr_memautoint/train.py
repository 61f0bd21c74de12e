# Modelled on: https://github.com/reczoo/FuxiCTR/blob/main/model_zoo/AutoInt/run_expid.py
#   (BaseModel/fit/train_epoch/train_step: fuxictr/pytorch/models/rank_model.py,
#    layers: fuxictr/pytorch/layers/, metrics: fuxictr/metrics.py)
import argparse
import json
import logging
import os

from fuxictr.features import FeatureMap
from fuxictr.pytorch.dataloaders import RankDataLoader
from fuxictr.pytorch.torch_utils import seed_everything
from fuxictr.utils import print_to_list
from model_zoo.MemAutoInt.src import MemAutoInt

CONFIG_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_zoo", "MemAutoInt", "config")


def load_config(config_dir, experiment_id):
    with open(os.path.join(config_dir, "model_config.json")) as f:
        params = dict(json.load(f)[experiment_id])
    with open(os.path.join(config_dir, "dataset_config.json")) as f:
        params["dataset_spec"] = json.load(f)[params["dataset_id"]]
    return params


def main(steps=10, expid="MemAutoInt_synthetic"):
    params = load_config(CONFIG_DIR, expid)
    seed_everything(seed=params["seed"])

    feature_map = FeatureMap(params["dataset_id"])
    feature_map.load_dict(params["dataset_spec"])

    model = MemAutoInt(feature_map, **params)
    model.count_parameters()

    train_gen, valid_gen = RankDataLoader(feature_map, stage="train", train_batches=steps,
                                          valid_batches=2, **params).make_iterator()
    model.fit(train_gen, validation_data=valid_gen, **params)

    logging.info("****** Validation evaluation ******")
    valid_result = model.evaluate(valid_gen)
    logging.info("[Result] " + print_to_list(valid_result))
    return model


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int, default=10)
    logging.basicConfig(level=logging.INFO)
    m = main(parser.parse_args().steps)
    print(m.history[-1])
