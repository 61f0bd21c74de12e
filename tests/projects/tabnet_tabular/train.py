"""Regression on a synthetic tabular data set with TabNetRegressor
(modelled on pytorch_tabnet's census/regression example notebooks)."""
import torch

from pytorch_tabnet.tab_model import TabNetRegressor
from pytorch_tabnet.callbacks import SparsityMonitor


def make_data(n_rows, n_features=16, seed=0):
    g = torch.Generator().manual_seed(seed)
    X = torch.randn(n_rows, n_features, generator=g)
    w = torch.zeros(n_features)
    w[:4] = torch.tensor([1.5, -2.0, 0.7, 1.0])
    y = (X @ w + 0.3 * torch.sin(3 * X[:, 4]) + 0.1 * torch.randn(n_rows, generator=g))
    return X, y.reshape(-1, 1)


MAX_STEPS = 32


def main(steps, batch_size=64):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    assert steps <= MAX_STEPS
    # a fixed pool of rows; one epoch over the first `steps` batches (drop_last=True)
    # -> exactly `steps` optimizer steps
    X_pool, y_pool = make_data(MAX_STEPS * batch_size, seed=0)
    X_train, y_train = X_pool[: steps * batch_size], y_pool[: steps * batch_size]
    X_valid, y_valid = make_data(256, seed=1)

    clf = TabNetRegressor(
        n_d=8, n_a=8, n_steps=3, lambda_sparse=1e-3, verbose=0,
        optimizer_fn=torch.optim.Adam, optimizer_params=dict(lr=2e-2),
        scheduler_fn=torch.optim.lr_scheduler.StepLR,
        scheduler_params={"step_size": 10, "gamma": 0.9},
        device_name="cpu",
    )
    monitor = SparsityMonitor(lambda_sparse=clf.lambda_sparse)
    clf.fit(
        X_train=X_train, y_train=y_train,
        eval_set=[(X_valid, y_valid)], eval_name=["valid"], eval_metric=["mae", "rmse"],
        max_epochs=1, patience=5, batch_size=batch_size, virtual_batch_size=32,
        drop_last=True, callbacks=[monitor], compute_importance=True,
    )
    preds = clf.predict(X_valid)
    return {
        "steps": steps,
        "valid_mae": clf.history["valid_mae"][-1],
        "train_loss": clf.history["loss"][-1],
        "pred_mean": float(preds.mean()),
        "top_feature": int(clf.feature_importances_.argmax()),
        "monitored": len(monitor.batch_sparse),
    }


if __name__ == "__main__":
    print(main(20))
