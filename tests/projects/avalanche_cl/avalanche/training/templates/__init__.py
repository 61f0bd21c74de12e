from avalanche.training.templates.common_templates import SupervisedTemplate  # noqa: F401
