"""Tiny registries so configs can name components by ``type``."""


class Registry:

    def __init__(self, name):
        self.name = name
        self._module_dict = {}

    def register_module(self, name=None):

        def _register(cls):
            self._module_dict[name or cls.__name__] = cls
            return cls

        return _register

    def get(self, key):
        return self._module_dict[key]

    def build(self, cfg, **default_args):
        if not isinstance(cfg, dict):
            return cfg
        args = dict(cfg)
        obj_type = args.pop('type')
        obj_cls = obj_type if isinstance(obj_type, type) else self.get(obj_type)
        for k, v in default_args.items():
            args.setdefault(k, v)
        return obj_cls(**args)


MODELS = Registry('model')
HOOKS = Registry('hook')
METRICS = Registry('metric')
DATASETS = Registry('dataset')
OPTIM_WRAPPERS = Registry('optim_wrapper')
