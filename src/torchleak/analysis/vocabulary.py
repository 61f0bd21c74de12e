"""What names mean in training code: models, losses, loaders, optimizers, grad-mode switches.

These are heuristics over qualified names and identifiers. Each list errs towards silence:
a callee we cannot classify makes its result "unknown", and no rule reports unknown values.
"""

from __future__ import annotations

import re
from typing import Final

#: Methods a per-batch training framework calls once per batch (Lightning, HF-style loops).
#: Locals die when they return; only attributes of ``self`` outlive the call.
PER_BATCH_METHODS: Final = frozenset({"training_step", "train_step", "training_step_end", "forward"})

#: Lightning runs these under ``torch.no_grad()`` / ``inference_mode()`` itself.
NO_GRAD_METHODS: Final = frozenset(
    {"validation_step", "test_step", "predict_step", "validation_step_end", "test_step_end"}
)

#: Context managers and decorators that switch autograd off for their body.
NO_GRAD_CALLABLES: Final = frozenset(
    {
        "torch.no_grad",
        "torch.inference_mode",
        "torch.autograd.no_grad",
        "torch.autograd.inference_mode",
        "torch.autograd.grad_mode.no_grad",
        "torch.autograd.grad_mode.inference_mode",
    }
)
ENABLE_GRAD_CALLABLES: Final = frozenset(
    {"torch.enable_grad", "torch.autograd.enable_grad", "torch.autograd.grad_mode.enable_grad"}
)
SET_GRAD_ENABLED: Final = frozenset({"torch.set_grad_enabled", "torch.autograd.set_grad_enabled"})

#: ``torch.autograd.grad``: differentiates without accumulating into ``.grad``.
AUTOGRAD_GRAD: Final = frozenset({"torch.autograd.grad", "torch.autograd.functional.grad"})
AUTOGRAD_BACKWARD: Final = frozenset({"torch.autograd.backward"})

#: Identifiers that name a network (``model``, ``self.encoder``, ``netG``, ``policy_net``).
MODEL_NAME: Final = re.compile(
    r"^(?:[a-z0-9]+_)*(?:model|net|network|encoder|decoder|generator|discriminator|critic|"
    r"policy|actor|backbone|classifier|rnn|lstm|gru|transformer|teacher|student|autoencoder|"
    r"vae|unet|cell)(?:_?[a-z0-9]+)*$|^net[a-z]$",
    re.IGNORECASE,
)
#: Methods of a network that run (part of) its forward pass.
FORWARD_METHODS: Final = frozenset(
    {"forward", "encode", "decode", "forward_features", "embed", "extract_features", "compute_loss"}
)

#: Identifiers that name a loss function (``criterion``, ``loss_fn``, ``self.ce_loss``).
LOSS_NAME: Final = re.compile(
    r"^(?:criterion|loss|loss_?fn|loss_?func|loss_function|loss_fct|loss_module|compute_loss|"
    r"[a-z0-9_]+_loss|[a-z0-9_]+_criterion|[a-z0-9_]+_loss_fn|cross_entropy|"
    r"binary_cross_entropy(?:_with_logits)?|kl_div)$",
    re.IGNORECASE,
)
#: ``torch.nn.functional`` members that are losses.
FUNCTIONAL_LOSS: Final = re.compile(
    r"^torch\.nn\.functional\.(?:.*_loss|cross_entropy|binary_cross_entropy(?:_with_logits)?|"
    r"kl_div|nll_loss)$"
)
#: Identifiers in a loop's iterable that mark it as a loop over batches.
LOADER_NAME: Final = re.compile(
    r"loader|batches|dataset|data_iter|dataiter|epoch_iterator|^dl$|_dl$|^dl_", re.IGNORECASE
)
#: Receivers of ``.step()`` that are optimizers (one step per batch).
OPTIMIZER_NAME: Final = re.compile(r"^(?:[a-z0-9]+_)*(?:opt|optim|optimizer|optimiser)(?:_?[a-z0-9]+)*$", re.IGNORECASE)

#: Tensor methods whose result carries no autograd graph.
DETACHING_METHODS: Final = frozenset(
    {
        "item", "tolist", "detach", "detach_", "numpy", "argmax", "argmin", "argsort", "eq", "ne",
        "lt", "le", "gt", "ge", "isnan", "isinf", "isfinite", "nonzero", "long", "int", "bool",
        "byte", "short", "char", "size", "dim", "numel", "nelement", "element_size", "data_ptr",
        "stride", "is_contiguous", "all", "any", "count_nonzero", "bincount", "backward",
        "requires_grad_", "zero_", "fill_", "copy_", "get_device", "is_floating_point",
        "__len__", "__float__", "__int__", "__bool__", "logical_and", "logical_or", "logical_not",
    }
)
#: Attributes of a tensor that are not on the graph.
DETACHING_ATTRIBUTES: Final = frozenset(
    {"data", "shape", "dtype", "device", "requires_grad", "ndim", "grad", "is_leaf", "grad_fn",
     "is_cuda", "layout", "names"}
)
#: Builtins and library calls whose result holds no graph.
DETACHING_CALLABLES: Final = frozenset(
    {
        "float", "int", "bool", "len", "str", "repr", "round", "isinstance", "print", "range",
        "format", "hash", "id", "type", "callable", "hasattr", "getattr",
        "torch.tensor", "torch.zeros", "torch.ones", "torch.empty", "torch.full", "torch.rand",
        "torch.randn", "torch.randint", "torch.arange", "torch.linspace", "torch.logspace",
        "torch.eye", "torch.zeros_like", "torch.ones_like", "torch.empty_like", "torch.full_like",
        "torch.rand_like", "torch.randn_like", "torch.randint_like", "torch.randperm",
        "torch.argmax", "torch.argmin", "torch.argsort", "torch.eq", "torch.ne", "torch.lt",
        "torch.le", "torch.gt", "torch.ge", "torch.isnan", "torch.isinf", "torch.isfinite",
        "torch.no_grad", "torch.enable_grad", "torch.inference_mode", "torch.manual_seed",
        "torch.save", "torch.load", "torch.device", "torch.Size", "torch.numel",
        "torch.count_nonzero", "torch.nonzero", "torch.bincount",
    }
)
#: Builtins that hand back (part of) what they are given.
PASSING_BUILTINS: Final = frozenset(
    {"sum", "max", "min", "abs", "pow", "list", "tuple", "sorted", "reversed", "dict", "zip",
     "enumerate", "iter", "next", "divmod"}
)
#: Calls that take a step through the graph (``x.backward()``, ``accelerator.backward(x)``).
BACKWARD_METHODS: Final = frozenset({"backward", "manual_backward"})
#: Container methods that store their arguments.
#: (Not ``update``: torchmetrics' ``metric.update(preds, y)`` runs with grad disabled.)
STORING_METHODS: Final = frozenset({"append", "extend", "insert", "appendleft", "extendleft", "put"})
#: Calls that reset parameters' ``.grad``.
GRAD_RESET_METHODS: Final = frozenset({"zero_grad"})
#: Words in a callee's dotted name that mark a logging call, which reads a value and drops it.
LOGGING_WORDS: Final = ("log", "writer", "wandb", "tensorboard", "print", "summary", "pbar", "set_postfix")
