# Modelled on yolox/utils/model_utils.py::adjust_status
import contextlib


@contextlib.contextmanager
def adjust_status(module, training=False):
    status = {}

    def backup_status(module):
        for m in module.modules():
            status[m] = m.training
            m.training = training

    def recover_status(module):
        for m in module.modules():
            m.training = status.pop(m)

    backup_status(module)
    yield module
    recover_status(module)
