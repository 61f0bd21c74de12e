""" Model Registry (minimal) """
_model_entrypoints = {}


def register_model(fn):
    _model_entrypoints[fn.__name__] = fn
    return fn


def list_models():
    return sorted(_model_entrypoints.keys())


def model_entrypoint(model_name):
    return _model_entrypoints[model_name]
