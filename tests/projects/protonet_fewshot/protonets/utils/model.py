"""Building the model from options, and the evaluation passes over episodes."""
import torch

from protonets.models import get_model


def load(opt):
    model_opt = {key.split(".", 1)[1]: value for key, value in opt.items() if key.startswith("model.")}
    model_name = model_opt.pop("model_name")
    return get_model(model_name, model_opt)


def evaluate(model, data_loader, meters):
    model.eval()
    for meter in meters.values():
        meter.reset()
    for sample in data_loader:
        _, output = model.loss(sample)
        for field, meter in meters.items():
            meter.add(output[field])  # known-miss: TLK101 (eval loop without no_grad; Protonet.loss returns a dict whose "loss" is attached, read as output[field] in a loop over meters.items() and summed by AverageValueMeter.add in utils/meter.py)
    return meters


@torch.no_grad()
def test_accuracy(model, data_loader, meters):
    model.eval()
    for sample in data_loader:
        _, output = model.loss(sample)
        for field, meter in meters.items():
            meter.add(output[field])
    return {field: meter.value() for field, meter in meters.items()}
