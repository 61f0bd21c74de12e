from ._registry import model_entrypoint


def create_model(model_name, pretrained=False, num_classes=10, **kwargs):
    """Create a model by registered name."""
    create_fn = model_entrypoint(model_name)
    model = create_fn(pretrained=pretrained, num_classes=num_classes, **kwargs)
    return model
