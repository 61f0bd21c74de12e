from pytorch_tabnet.tab_model import TabNetRegressor, TabNetClassifier  # noqa: F401
