# Modelled on: https://github.com/G-U-N/PyCIL/blob/master/trainer.py
import sys
import json
import logging
import copy
import os
import torch
from utils import factory
from utils.data_manager import DataManager
from utils.toolkit import count_parameters


def load_json(settings_path):
    with open(settings_path) as data_file:
        param = json.load(data_file)
    return param


def train(args):
    seed_list = copy.deepcopy(args["seed"])
    device = copy.deepcopy(args["device"])

    results = []
    for seed in seed_list:
        args["seed"] = seed
        args["device"] = device
        results.append(_train(args))
    return results


def _train(args):
    logging.basicConfig(
        level=logging.WARNING,
        format="%(asctime)s [%(filename)s] => %(message)s",
        handlers=[logging.StreamHandler(sys.stdout)],
    )

    _set_random(args["seed"])
    _set_device(args)
    print_args(args)
    data_manager = DataManager(
        args["dataset"],
        args["shuffle"],
        args["seed"],
        args["init_cls"],
        args["increment"],
    )
    model = factory.get_model(args["model_name"], args)

    cnn_curve, nme_curve = {"top1": [], "top2": []}, {"top1": [], "top2": []}
    for task in range(data_manager.nb_tasks):
        logging.info("All params: {}".format(count_parameters(model._network)))
        logging.info("Trainable params: {}".format(count_parameters(model._network, True)))
        model.incremental_train(data_manager)
        cnn_accy, nme_accy = model.eval_task()
        model.after_task()

        logging.info("CNN: {}".format(cnn_accy["grouped"]))
        cnn_curve["top1"].append(cnn_accy["top1"])
        cnn_curve["top2"].append(cnn_accy["top2"])
        if nme_accy is not None:
            logging.info("NME: {}".format(nme_accy["grouped"]))
            nme_curve["top1"].append(nme_accy["top1"])
            nme_curve["top2"].append(nme_accy["top2"])
        logging.info("CNN top1 curve: {}".format(cnn_curve["top1"]))

    return {"model": model, "cnn_curve": cnn_curve, "nme_curve": nme_curve}


def _set_device(args):
    device_type = args["device"]
    gpus = []

    for device in device_type:
        if device == -1 or device == "-1" or not torch.cuda.is_available():
            device = torch.device("cpu")
        else:
            device = torch.device("cuda:{}".format(device))

        gpus.append(device)

    args["device"] = gpus


def _set_random(seed=1):
    torch.manual_seed(seed)
    torch.cuda.manual_seed(seed)
    torch.cuda.manual_seed_all(seed)
    torch.backends.cudnn.deterministic = True
    torch.backends.cudnn.benchmark = False


def print_args(args):
    for key, value in args.items():
        logging.info("{}: {}".format(key, value))


def main(steps):
    """Class-incremental run over all tasks with `steps` optimiser steps in
    total (split evenly over the tasks). Returns the learner and the curves."""
    here = os.path.dirname(os.path.abspath(__file__))
    args = load_json(os.path.join(here, "exps", "protoaug.json"))
    args["seed"] = args["seed"][:1]
    args["iters_per_task"] = max(1, steps // 2)
    return train(args)[0]


if __name__ == "__main__":
    out = main(10)
    print(out["cnn_curve"], out["nme_curve"])
