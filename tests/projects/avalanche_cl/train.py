"""Class-incremental training with avalanche-style plugins:
Naive strategy + EWC + LwF + herding-like replay + IL2M score rectification,
ReduceLROnPlateau on the train loss, evaluation plugin with loss/accuracy metrics
(modelled on avalanche's examples/naive.py, examples/eval_plugin.py, examples/all_mnist.py)."""
import torch
from torch.nn import CrossEntropyLoss
from torch.optim import SGD
from torch.optim.lr_scheduler import ReduceLROnPlateau

from avalanche.benchmarks.classic import SplitGaussian
from avalanche.models.simple_mlp import SimpleMLP
from avalanche.training.supervised.strategy_wrappers import Naive
from avalanche.training.plugins.ewc import EWCPlugin
from avalanche.training.plugins.lwf import LwFPlugin
from avalanche.training.plugins.replay import ReplayPlugin
from avalanche.training.plugins.il2m import IL2MPlugin
from avalanche.training.plugins.lr_scheduling import LRSchedulerPlugin
from avalanche.training.plugins.iteration_limit import IterationLimitPlugin
from avalanche.training.plugins.evaluation import EvaluationPlugin
from avalanche.evaluation.metrics.loss import MinibatchLoss, EpochLoss, StreamLoss
from avalanche.evaluation.metrics.accuracy import EpochAccuracy, StreamAccuracy


MAX_ITERS_PER_EXP = 24


def main(steps, train_mb_size=128):
    torch.set_num_threads(1)
    torch.manual_seed(0)
    n_experiences = 2
    # steps are split evenly over the experiences: each experience holds
    # MAX_ITERS_PER_EXP mini-batches and training stops after iters_per_exp of them
    iters_per_exp = max(1, steps // n_experiences)
    assert iters_per_exp <= MAX_ITERS_PER_EXP
    benchmark = SplitGaussian(n_experiences=n_experiences, classes_per_exp=25,
                              train_size_per_exp=MAX_ITERS_PER_EXP * train_mb_size,
                              test_size_per_exp=128, input_size=32, seed=0)

    model = SimpleMLP(num_classes=benchmark.n_classes, input_size=32, hidden_size=64,
                      hidden_layers=1, drop_rate=0.0)
    optimizer = SGD(model.parameters(), lr=0.05, momentum=0.9)
    scheduler = ReduceLROnPlateau(optimizer, mode="min", factor=0.5, patience=1)

    evaluator = EvaluationPlugin(MinibatchLoss(), EpochLoss(), EpochAccuracy(),
                                 StreamLoss(), StreamAccuracy())
    plugins = [
        ReplayPlugin(mem_size=100, batch_size_mem=32),
        EWCPlugin(ewc_lambda=0.4),
        LwFPlugin(alpha=1.0, temperature=2.0),
        IL2MPlugin(n_classes=benchmark.n_classes),
        LRSchedulerPlugin(scheduler, metric="train_loss"),
        IterationLimitPlugin(max_iterations=iters_per_exp),
    ]
    strategy = Naive(model, optimizer, CrossEntropyLoss(), train_mb_size=train_mb_size,
                     train_epochs=1, eval_mb_size=128, device="cpu",
                     plugins=plugins, evaluator=evaluator)

    results = []
    for experience in benchmark.train_stream:
        strategy.train(experience)
        results.append(strategy.eval(benchmark.test_stream[: experience.current_experience + 1]))

    last = results[-1]
    return {
        "steps": strategy.clock.train_iterations,
        "stream_acc": last.get("Top1_Acc_Stream/eval"),
        "stream_loss": last.get("Loss_Stream/eval"),
        "n_logged": len(evaluator.get_all_metrics()["Loss_MB/train"][1]),
    }


if __name__ == "__main__":
    print(main(20))
