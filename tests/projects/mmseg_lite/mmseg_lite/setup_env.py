"""Import every sub-package so that their components are registered."""


def register_all_modules() -> None:
    from . import datasets, engine, evaluation, models  # noqa: F401
