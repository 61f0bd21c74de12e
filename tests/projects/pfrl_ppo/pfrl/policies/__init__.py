from pfrl.policies.softmax_policy import SoftmaxCategoricalHead  # NOQA
