"""net_builder / get_logger / count_parameters (TorchSSL utils.py)."""
import logging
import os


def setattr_cls_from_kwargs(cls, kwargs):
    for key in kwargs.keys():
        value = kwargs[key]
        setattr(cls, key, value)


def net_builder(net_name, from_name: bool, net_conf=None, is_remix=False):
    """Return the *build function* of a backbone (called later with num_classes)."""
    if from_name:
        raise NotImplementedError("torchvision backbones are not used in this copy")
    if net_name == 'WideResNet':
        import torchssl.models.nets.wrn as net
        builder = getattr(net, 'build_WideResNet')()
    else:
        raise NotImplementedError(net_name)
    setattr_cls_from_kwargs(builder, net_conf or {})
    return builder.build


def get_logger(name, save_path=None, level='INFO'):
    logger = logging.getLogger(name)
    logger.setLevel(getattr(logging, level))
    log_format = logging.Formatter('[%(asctime)s %(levelname)s] %(message)s')
    if not logger.handlers:
        streamHandler = logging.StreamHandler()
        streamHandler.setFormatter(log_format)
        streamHandler.setLevel(logging.WARNING)
        logger.addHandler(streamHandler)
    if save_path is not None:
        os.makedirs(save_path, exist_ok=True)
        fileHandler = logging.FileHandler(os.path.join(save_path, 'log.txt'))
        fileHandler.setFormatter(log_format)
        logger.addHandler(fileHandler)
    return logger


def count_parameters(model):
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
