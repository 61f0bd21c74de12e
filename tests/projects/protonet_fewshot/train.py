# Modelled on jakesnell/prototypical-networks (scripts/train/few_shot/train.py, protonets/engine.py,
# protonets/models/few_shot.py, protonets/utils/model.py, with torchnet's AverageValueMeter): the
# script registers hooks on a small training engine, the Protonet's loss() returns the loss and a
# dict of values to log, meters average them per epoch, and the model is evaluated on validation
# episodes after each epoch; here also a replay of the hardest training episodes. Written anew and
# much smaller; random 1x8x8 "characters" stand in for Omniglot, two conv blocks for four.
from functools import partial

import torch
import torch.optim as optim

import protonets.utils.model as model_utils
from protonets.engine import Engine
from protonets.utils.meter import AverageValueMeter
from protonets.utils.replay import HardEpisodeBuffer


def make_episodes(n_episodes, n_way=5, n_support=2, n_query=3, x_dim=(1, 8, 8)):
    protos = torch.randn(20, *x_dim)
    episodes = []
    for _ in range(n_episodes):
        classes = torch.randperm(20)[:n_way]
        base = protos[classes].unsqueeze(1)
        xs = base + 1.0 * torch.randn(n_way, n_support, *x_dim)
        xq = base + 1.0 * torch.randn(n_way, n_query, *x_dim)
        episodes.append({"xs": xs, "xq": xq, "class": classes})
    return episodes


def main(opt):
    torch.manual_seed(1234)
    train_loader = make_episodes(opt["data.train_episodes"])
    val_loader = make_episodes(opt["data.test_episodes"])
    model = model_utils.load(opt)
    engine = Engine()
    fields = opt["log.fields"]
    meters = {"train": {field: AverageValueMeter() for field in fields},
              "val": {field: AverageValueMeter() for field in fields}}
    hard_episodes = HardEpisodeBuffer()
    acc_history = []

    def on_start_epoch(state):
        for split_meters in meters.values():
            for meter in split_meters.values():
                meter.reset()
        hard_episodes.clear()
    engine.hooks["on_start_epoch"] = on_start_epoch

    def on_forward(state):
        acc_history.append(state["output"]["acc"])
    engine.hooks["on_forward"] = on_forward

    def on_update(state):
        for field, meter in meters["train"].items():
            meter.add(state["output"][field])  # known-miss: TLK101 (in an Engine hook run once per episode; state["output"] is the dict Protonet.loss returns, its attached "loss" summed by AverageValueMeter.add)
        hard_episodes.push(state["sample"], state["output"]["loss"])  # known-miss: TLK102 (in the per-episode Engine hook; HardEpisodeBuffer.push appends the attached loss from Protonet.loss's dict to self.episodes)
    engine.hooks["on_update"] = on_update

    def on_end_epoch(hook_state, state):
        model_utils.evaluate(state["model"], val_loader, meters["val"])
        replay = hard_episodes.hardest(opt["train.replay"])
        state["model"].train()
        for sample in replay:
            state["optimizer"].zero_grad()
            loss, _ = state["model"].loss(sample)
            loss.backward()
            state["optimizer"].step()
        values = {split: {field: meter.value()[0] for field, meter in split_meters.items()}
                  for split, split_meters in meters.items()}
        hook_state["best"] = min(hook_state.get("best", float("inf")), values["val"]["loss"])
        print("Epoch {:02d}: {}; replayed {} hard episodes; best val loss {:.4f}".format(
            state["epoch"], values, len(replay), hook_state["best"]))
    engine.hooks["on_end_epoch"] = partial(on_end_epoch, {})

    state = engine.train(model=model, loader=train_loader, optim_method=optim.Adam,
                         optim_config={"lr": opt["train.learning_rate"], "weight_decay": 0.0},
                         max_epoch=opt["train.epochs"])
    test = {field: AverageValueMeter() for field in fields}
    print("test:", model_utils.test_accuracy(state["model"], make_episodes(4), test))
    print("mean train episode accuracy:", float(torch.stack(acc_history).mean()))


if __name__ == "__main__":
    main({
        "model.model_name": "protonet_conv", "model.x_dim": (1, 8, 8), "model.hid_dim": 16, "model.z_dim": 16,
        "data.train_episodes": 8, "data.test_episodes": 4, "log.fields": ["loss", "acc"],
        "train.learning_rate": 1e-3, "train.epochs": 2, "train.replay": 2,
    })
