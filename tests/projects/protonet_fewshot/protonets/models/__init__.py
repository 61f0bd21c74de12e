MODEL_REGISTRY = {}


def register_model(model_name):
    def decorator(f):
        MODEL_REGISTRY[model_name] = f
        return f
    return decorator


def get_model(model_name, model_opt):
    if model_name in MODEL_REGISTRY:
        return MODEL_REGISTRY[model_name](**model_opt)
    raise ValueError("Unknown model {:s}".format(model_name))


from protonets.models import few_shot  # noqa: E402,F401  (registers the models)
