from torch import nn


class MessageFunction(nn.Module):
  """
  Module which computes the message for a given interaction.
  """

  def compute_message(self, raw_messages):
    return None


class MLPMessageFunction(MessageFunction):
  def __init__(self, raw_message_dimension, message_dimension):
    super(MLPMessageFunction, self).__init__()

    self.mlp = self.layers = nn.Sequential(
      nn.Linear(raw_message_dimension, raw_message_dimension // 2),
      nn.ReLU(),
      nn.Linear(raw_message_dimension // 2, message_dimension),
    )
    # message magnitude statistics, reported once per epoch
    self.reset_stats()

  def reset_stats(self):
    self.message_norm_sum = 0.
    self.n_messages = 0

  def compute_message(self, raw_messages):
    messages = self.mlp(raw_messages)

    if self.training:
      self.message_norm_sum += messages.norm(dim=1).sum()  # known-miss: TLK101
      self.n_messages += messages.shape[0]

    return messages

  def mean_message_norm(self):
    return float(self.message_norm_sum) / max(self.n_messages, 1)


class IdentityMessageFunction(MessageFunction):

  def compute_message(self, raw_messages):

    return raw_messages


def get_message_function(module_type, raw_message_dimension, message_dimension):
  if module_type == "mlp":
    return MLPMessageFunction(raw_message_dimension, message_dimension)
  elif module_type == "identity":
    return IdentityMessageFunction()
