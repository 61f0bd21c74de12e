"""What torch (and the libraries around it) means, in one table keyed by qualified names:
constructors that give modules, optimizers, losses and loaders; calls and methods whose
results carry no graph; grad-mode switches; backward and optimizer-step calls.

The interpreter, the pre-filter and the fixes read this module and no list of their own.
The identifier patterns at the end (``MODEL_NAME``, ``LOSS_NAME``, ...) are a fallback used
only where the file gives no evidence; each errs towards silence.
"""

from __future__ import annotations

import re
from typing import Final

#: Methods a per-batch training framework calls once per batch (Lightning, HF-style loops).
#: Locals die when they return; only attributes of ``self`` outlive the call.
#: Methods a framework calls once per batch (Lightning, Keras-style trainers, the Hugging Face
#: ``Trainer``'s ``compute_loss``/``training_step``), and ``forward``.
PER_BATCH_METHODS: Final = frozenset({"training_step", "train_step", "training_step_end", "forward", "compute_loss"})

#: Hooks a framework's runner calls once per training iteration, by name, with the parameters
#: that hold that iteration's outputs still attached: mmengine's ``Hook.after_train_iter(runner,
#: batch_idx, data_batch, outputs)`` gets the ``log_vars`` of ``BaseModel.parse_losses`` (tensors
#: its message hub converts with ``.item()``; a hook that keeps them keeps every iteration's graph).
PER_BATCH_HOOKS: Final = {"after_train_iter": frozenset({"outputs"})}
#: Hooks a framework calls once per training iteration with the object that runs it, by hook
#: name -> parameter -> the attributes of that object holding the iteration's graph: Avalanche's
#: plugins (``before_backward(self, strategy)``, ``strategy.mb_output`` the model's output and
#: ``strategy.loss`` the loss, both attached from the forward until the next iteration).
PER_BATCH_OBJECT_HOOKS: Final = {
    hook: {"strategy": frozenset({"mb_output", "loss"})}
    for hook in ("after_forward", "before_backward", "after_backward", "after_training_iteration", "before_update", "after_update")
}
#: Every name a framework runs once per batch: what the pre-filter keeps, as it keeps loops.
PER_BATCH_NAMES: Final = PER_BATCH_METHODS | frozenset(PER_BATCH_HOOKS) | frozenset(PER_BATCH_OBJECT_HOOKS)

#: Lightning runs these under ``torch.no_grad()`` / ``inference_mode()`` itself.
NO_GRAD_METHODS: Final = frozenset(
    {"validation_step", "test_step", "predict_step", "validation_step_end", "test_step_end"}
)

#: A project's own wrapper of them, known by its name where its definition is out of sight
#: (yolov5's ``@smart_inference_mode()``): a fallback, used only for decorators and ``with``.
NO_GRAD_WRAPPER_NAME: Final = re.compile(r"(?:^|_)(?:no_grad|inference_mode)(?:$|_)")

#: Methods a framework runs under no-grad, by the base class name that says so.
FRAMEWORK_NO_GRAD_METHODS: Final = {"_forward": "Pipeline"}
#: Methods whose returned loss the framework that calls them backwards (Lightning's automatic
#: optimisation, Hugging Face's ``Trainer.training_step``).
FRAMEWORK_BACKWARDED_RETURNS: Final = frozenset({"training_step", "compute_loss"})

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
#: Not a name that starts with a verb (``get_model_id``, ``build_model``, ``load_model``: a helper
#: that returns a string, a config or a module, never a forward) or ends with a noun for data
#: about a network (``model_name``, ``policy_path``, ``encoder_config``).
MODEL_NAME: Final = re.compile(
    r"^(?!(?:get|load|build|create|make|init|initialize|save|setup|prepare|wrap|unwrap|print|log|count|"
    r"freeze|unfreeze|copy|is|has|check|register|export|download|resolve|convert|reset)_)"
    r"(?!.*_(?:id|ids|name|names|path|paths|dir|config|cfg|type|types|args|kwargs|file|files|url|info|"
    r"size|dim|dims|class|cls|registry|summary|card|version|key|keys|str|spec)$)"
    r"(?:[a-z0-9]+_)*(?:model|net|network|encoder|decoder|generator|discriminator|critic|"
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
        "sample", "multinomial",
        # fresh tensors of the receiver's dtype and device, no graph (``x.new_zeros(n, 0)``)
        "new_zeros", "new_ones", "new_full", "new_empty", "new_tensor",
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
        "torch.save", "torch.device", "torch.Size", "torch.numel",
        "torch.count_nonzero", "torch.nonzero", "torch.bincount", "torch.multinomial",
        "torch.searchsorted", "torch.bucketize",
        # The total norm they return is computed under no_grad.
        "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad.clip_grad_norm_",
        "torch.nn.utils.get_total_norm", "torch.nn.utils.clip_grad_value_",
    }
)
#: Builtins that hand back (part of) what they are given.
PASSING_BUILTINS: Final = frozenset(
    {"sum", "max", "min", "abs", "pow", "list", "tuple", "sorted", "reversed", "dict", "zip",
     "enumerate", "iter", "next", "divmod"}
)
#: Tensor methods (and ``torch.`` functions of the same name) that give Python numbers.
NUMBER_METHODS: Final = frozenset({"item", "size", "dim", "numel", "nelement", "element_size", "ndimension", "get_device"})
#: Tensor methods and ``torch.`` functions that give a tuple of tensors, not one tensor (so a
#: fix must never call ``.detach()`` on their result): ``out.unbind(0)``, ``x.max(dim=1)``.
TUPLE_METHODS: Final = frozenset(
    {"unbind", "split", "chunk", "tensor_split", "hsplit", "vsplit", "dsplit", "split_with_sizes",
     "unsafe_split", "topk", "sort", "kthvalue", "mode", "aminmax", "cummax", "cummin", "frexp",
     "slogdet", "qr", "svd", "eig", "eigh", "lu", "geqrf", "triangular_solve", "lstsq", "histogram",
     "meshgrid", "broadcast_tensors", "unique_consecutive", "lobpcg", "var_mean", "std_mean"}
)
#: Reductions that give a tuple (values, indices) when given a dimension: ``x.max(1)``.
TUPLE_WITH_DIM_METHODS: Final = frozenset({"max", "min", "median", "nanmedian"})
#: Calls that take a step through the graph (``x.backward()``, ``accelerator.backward(x)``).
BACKWARD_METHODS: Final = frozenset({"backward", "manual_backward"})
#: Container methods that store their arguments.
#: (Not ``update``: torchmetrics' ``metric.update(preds, y)`` runs with grad disabled.)
STORING_METHODS: Final = frozenset({"append", "extend", "insert", "appendleft", "extendleft", "put"})
#: Calls that reset parameters' ``.grad``.
GRAD_RESET_METHODS: Final = frozenset({"zero_grad"})
#: Words in a callee's dotted name that mark a logging call, which reads a value and drops it.
LOGGING_WORDS: Final = ("log", "writer", "wandb", "tensorboard", "print", "summary", "pbar", "set_postfix")
#: Methods of loggers, writers and progress bars that read their arguments and keep nothing
#: the analysis follows (``logger.info(...)``, ``writer.add_scalar(...)``).
REPORTING_METHODS: Final = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "add_scalar", "add_scalars",
     "add_text", "write", "flush", "set_postfix", "set_description", "set_postfix_str"}
)


# ------------------------------------------------------------------ constructors -> kinds
#: ``torch.nn`` classes without parameters: their output is attached only if their input is.
#: ``torch`` functions returning whatever was saved (a module, a state dict, a tensor): the
#: file's use of the result says what it is.
OBJECT_LOADERS: Final = frozenset({"torch.load", "torch.hub.load", "torch.export.load"})
#: Draws at random from the container given first: a replay memory. A graph kept in one cannot be
#: backwarded at each draw (the second backward through it raises), so none of it is needed later.
RANDOM_DRAWS: Final = frozenset({"random.sample", "random.choices", "random.choice", "numpy.random.choice"})
#: Functions outside ``torch`` that are differentiable: their result keeps the input's graph
#: (Horovod's collectives average a loss across workers for logging or for the backward).
GRAPH_PASSING_FUNCTIONS: Final = frozenset(
    {"horovod.torch.allreduce", "horovod.torch.allgather", "horovod.torch.broadcast", "horovod.torch.alltoall",
     # a copy of a record with some fields replaced holds what the record and the new fields held
     "dataclasses.replace", "copy.replace", "copy.copy"}
)
#: Torch functions computing on a forward's output (``F.normalize(encoder(x))``), not building a
#: tensor from data (``torch.tensor(env.reset())``): their argument's callee made the graph.
GRAPH_OPS_PREFIXES: Final = (
    "torch.nn.functional.", "torch.sigmoid", "torch.tanh", "torch.softmax", "torch.log_softmax", "torch.flatten",
    "torch.squeeze", "torch.relu", "torch.exp", "torch.log",
)

#: Tensor methods that move, cast or reshape without computing: ``x = x.to(device)`` in a loop
#: is not a state fed back into a computation.
RESHAPING_METHODS: Final = frozenset(
    {"to", "cuda", "cpu", "float", "half", "double", "bfloat16", "contiguous", "type", "type_as", "pin_memory",
     "view", "reshape", "squeeze", "unsqueeze", "permute", "transpose", "flatten", "clone"}
)

#: Tensor methods whose result is computed from their tensor arguments too (``avg.lerp(loss, 0.1)``,
#: ``x.mm(w)``): what an argument's graph is, the result's is, whatever the receiver's.
COMBINING_METHODS: Final = frozenset(
    {"add", "sub", "mul", "div", "true_divide", "matmul", "mm", "bmm", "mv", "dot", "outer", "lerp", "where",
     "maximum", "minimum", "pow", "addcmul", "addcdiv", "addmm", "cross", "hypot", "atan2", "fmod", "remainder",
     "index_add", "scatter_add", "scatter", "index_copy", "masked_scatter"}
)

#: Tensor methods that compute from their tensor alone (given numbers at most): what a
#: backwarded ``losses.mean(dim=0)`` differentiates is ``losses``'s graph.
REDUCING_METHODS: Final = frozenset(
    {"mean", "sum", "nanmean", "nansum", "prod", "norm", "abs", "neg", "exp", "log", "sqrt", "square", "pow",
     "clamp", "squeeze", "unsqueeze", "view", "reshape", "flatten", "contiguous", "float", "double", "to", "mul", "div"}
)

#: Tensor methods that add a value to their tensor, by the position of that value among their
#: positional arguments: ``sums = sums.index_add(0, bucket, losses)`` is ``sums + losses``.
SUMMING_METHODS: Final = {"add": 0, "sub": 0, "index_add": 2, "scatter_add": 2}

#: Calls that return the module they are given, wrapped.
MODULE_WRAPPERS: Final = frozenset(
    {"torch.compile", "torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel", "torch.jit.script",
     "torch.jit.trace"}
)

#: Modules that hold other modules; calling a Sequential runs each of them in order.
MODULE_CONTAINERS: Final = frozenset({"torch.nn.Sequential", "torch.nn.ModuleList", "torch.nn.ModuleDict"})

PARAMETER_FREE_MODULES: Final = frozenset(
    {
        "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "GELU", "SiLU", "Mish", "Sigmoid",
        "Tanh", "Softmax", "LogSoftmax", "Softmin", "Softplus", "Softsign", "Hardtanh",
        "Hardswish", "Hardsigmoid", "Tanhshrink", "Threshold", "GLU", "LogSigmoid", "Dropout",
        "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout", "Identity", "Flatten", "Unflatten",
        "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d", "AvgPool3d",
        "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d",
        "AdaptiveMaxPool2d", "AdaptiveMaxPool3d", "Upsample", "UpsamplingNearest2d",
        "UpsamplingBilinear2d", "PixelShuffle", "PixelUnshuffle", "ZeroPad2d", "ConstantPad1d",
        "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d", "CosineSimilarity",
        "PairwiseDistance", "ChannelShuffle",
    }
)
#: ``torch.nn`` names that are not modules one calls for a forward pass.
NOT_MODULES: Final = frozenset({"Parameter", "ParameterList", "ParameterDict", "Buffer"})
#: Qualified callables that build a module with parameters from a name or another module.
MODULE_FACTORIES: Final = (
    "timm.create_model", "torch.hub.load", "torchvision.models.", "torch.compile",
    "torch.nn.parallel.DistributedDataParallel", "torch.nn.DataParallel", "torch.jit.script", "torch.jit.trace",
    "torch.jit.load",  # always a ScriptModule
)
#: ``X.from_pretrained`` gives a module unless ``X`` names one of these.
NOT_MODULE_PRETRAINED: Final = ("Tokenizer", "Processor", "Config", "FeatureExtractor", "ImageProcessor")
#: Inference pipelines (Hugging Face's ``pipeline(...)``, diffusers' ``*Pipeline.from_pretrained``):
#: objects, not modules, whose call runs the model under ``torch.no_grad()`` and returns
#: images or text.
INFERENCE_PIPELINES: Final = ("transformers.pipeline", "Pipeline")
#: Methods of a module that return the module itself.
MODULE_SELF_METHODS: Final = frozenset(
    {"to", "cuda", "cpu", "train", "eval", "half", "float", "double", "bfloat16", "requires_grad_",
     "apply", "type", "to_empty", "share_memory"}
)
#: Methods of a module that compute no graph (the rest run part of the forward pass).
MODULE_PLAIN_METHODS: Final = frozenset(
    {
        "parameters", "named_parameters", "state_dict", "load_state_dict", "children",
        "named_children", "modules", "named_modules", "buffers", "named_buffers", "zero_grad",
        "register_forward_hook", "register_forward_pre_hook", "register_full_backward_hook",
        "register_backward_hook", "register_buffer", "register_parameter", "add_module",
        "get_submodule", "get_parameter", "generate", "save_pretrained", "num_parameters",
        "extra_repr", "init_hidden", "init_state", "reset_parameters", "get_input_embeddings",
        "resize_token_embeddings", "gradient_checkpointing_enable", "tie_weights", "print_trainable_parameters",
    }
)
#: Calls on a module or tensor that are evidence the receiver is a module.
MODULE_EVIDENCE_METHODS: Final = frozenset(
    {"parameters", "named_parameters", "named_modules", "modules", "children", "buffers", "eval"}
)
#: ``torch.optim`` members that are not optimizers.
NOT_OPTIMIZERS: Final = frozenset({"lr_scheduler", "swa_utils", "Optimizer"})
#: Callables that wrap objects and hand them back in order (``accelerator.prepare(m, opt, dl)``).
PASSING_WRAPPERS: Final = frozenset(
    {"prepare", "setup", "initialize", "gather", "gather_for_metrics", "pad_across_processes", "reduce"}
)
LOADER_CONSTRUCTORS: Final = frozenset({"torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader"})
#: Trainers' methods that register a function to run at an event (minGPT's ``add_callback``,
#: ``set_callback``), and the event names that come once per batch.
CALLBACK_REGISTRATIONS: Final = frozenset({"add_callback", "set_callback", "register_callback", "add_event_handler"})
PER_BATCH_EVENT: Final = re.compile(r"batch|iter|step", re.IGNORECASE)
#: Tensor methods that run an in-place update of the receiver from their arguments.
IN_PLACE_UPDATES: Final = frozenset(
    {"add_", "mul_", "sub_", "div_", "addcmul_", "addcdiv_", "lerp_", "copy_", "mul_add_", "index_copy_",
     "index_add_", "index_put_", "scatter_", "scatter_add_", "masked_scatter_", "put_"}
)
#: ``torch.distributions`` constructors: their ``log_prob``/``entropy``/``rsample`` keep the graph
#: of their parameters.
DISTRIBUTION_PREFIX: Final = "torch.distributions."
#: Calls that make a Python number (or list of numbers) of a tensor.
TO_NUMBER: Final = frozenset({"item", "tolist", "float", "int"})
#: Calls that read a value as a Python number (evidence a result is meant as a number).
NUMBER_READS: Final = TO_NUMBER | frozenset({"round", "print", "format", "str"})
