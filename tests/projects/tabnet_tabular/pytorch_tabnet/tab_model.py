import torch
import torch.nn.functional as F

from pytorch_tabnet.abstract_model import TabModel


class TabNetClassifier(TabModel):
    def __post_init__(self):
        super(TabNetClassifier, self).__post_init__()
        self._task = "classification"
        self._default_loss = F.cross_entropy
        self._default_metric = "accuracy"

    def prepare_target(self, y):
        return y.long()

    def compute_loss(self, y_pred, y_true):
        return self.loss_fn(y_pred, y_true.long())

    def update_fit_params(self, X_train, y_train, eval_set, weights):
        self.output_dim = int(y_train.max().item()) + 1
        self.updated_weights = weights

    def stack_batches(self, list_y_true, list_y_score):
        y_true = torch.cat(list_y_true)
        y_score = torch.softmax(torch.cat(list_y_score), dim=1)
        return y_true, y_score

    def predict_func(self, outputs):
        return torch.argmax(outputs, dim=1)


class TabNetRegressor(TabModel):
    def __post_init__(self):
        super(TabNetRegressor, self).__post_init__()
        self._task = "regression"
        self._default_loss = F.mse_loss
        self._default_metric = "mse"

    def prepare_target(self, y):
        return y

    def compute_loss(self, y_pred, y_true):
        return self.loss_fn(y_pred, y_true)

    def update_fit_params(self, X_train, y_train, eval_set, weights):
        if len(y_train.shape) != 2:
            msg = "Targets should be 2D : (n_samples, n_regression) " + \
                  f"but y_train.shape={y_train.shape} given.\n" + \
                  "Use reshape(-1, 1) for single regression."
            raise ValueError(msg)
        self.output_dim = y_train.shape[1]
        self.preds_mapper = None
        self.updated_weights = weights

    def predict_func(self, outputs):
        return outputs

    def stack_batches(self, list_y_true, list_y_score):
        y_true = torch.cat(list_y_true)
        y_score = torch.cat(list_y_score)
        return y_true, y_score
