from .unet import unet, conv2DBatchNormRelu

_MODELS = {"unet": unet}


def get_model(model_dict, n_classes):
    name = model_dict["arch"]
    params = {k: v for k, v in model_dict.items() if k != "arch"}
    if name not in _MODELS:
        raise ValueError("Model {} not available".format(name))
    return _MODELS[name](n_classes=n_classes, **params)


__all__ = ["get_model", "unet", "conv2DBatchNormRelu"]
