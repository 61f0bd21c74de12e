import math

import torch
from torch import nn


class EmbeddingModule(nn.Module):
  def __init__(self, node_features, edge_features, memory, time_encoder, n_layers,
               n_node_features, n_edge_features, n_time_features, embedding_dimension, device,
               dropout):
    super(EmbeddingModule, self).__init__()
    self.node_features = node_features
    self.edge_features = edge_features
    self.time_encoder = time_encoder
    self.n_layers = n_layers
    self.n_node_features = n_node_features
    self.n_edge_features = n_edge_features
    self.n_time_features = n_time_features
    self.dropout = dropout
    self.embedding_dimension = embedding_dimension
    self.device = device

  def compute_embedding(self, memory, source_nodes, timestamps, n_layers, n_neighbors=20, time_diffs=None,
                        use_time_proj=True):
    pass


class IdentityEmbedding(EmbeddingModule):
  def compute_embedding(self, memory, source_nodes, timestamps, n_layers, n_neighbors=20, time_diffs=None,
                        use_time_proj=True):
    return memory[source_nodes, :]


class TimeEmbedding(EmbeddingModule):
  def __init__(self, node_features, edge_features, memory, time_encoder, n_layers,
               n_node_features, n_edge_features, n_time_features, embedding_dimension, device,
               n_heads=2, dropout=0.1, use_memory=True, n_neighbors=1):
    super(TimeEmbedding, self).__init__(node_features, edge_features, memory,
                                        time_encoder, n_layers,
                                        n_node_features, n_edge_features, n_time_features,
                                        embedding_dimension, device, dropout)

    class NormalLinear(nn.Linear):
      # From Jodie code
      def reset_parameters(self):
        stdv = 1. / math.sqrt(self.weight.size(1))
        self.weight.data.normal_(0, stdv)
        if self.bias is not None:
          self.bias.data.normal_(0, stdv)

    self.embedding_layer = NormalLinear(1, self.n_node_features)

  def compute_embedding(self, memory, source_nodes, timestamps, n_layers, n_neighbors=20, time_diffs=None,
                        use_time_proj=True):
    source_embeddings = memory[source_nodes, :] * (1 + self.embedding_layer(time_diffs.unsqueeze(1)))

    return source_embeddings


def get_embedding_module(module_type, node_features, edge_features, memory, time_encoder,
                         n_layers, n_node_features, n_edge_features, n_time_features,
                         embedding_dimension, device, n_heads=2, dropout=0.1, n_neighbors=None,
                         use_memory=True):
  if module_type == "time":
    return TimeEmbedding(node_features=node_features, edge_features=edge_features, memory=memory,
                         time_encoder=time_encoder, n_layers=n_layers,
                         n_node_features=n_node_features, n_edge_features=n_edge_features,
                         n_time_features=n_time_features, embedding_dimension=embedding_dimension,
                         device=device, dropout=dropout, n_neighbors=n_neighbors)
  elif module_type == "identity":
    return IdentityEmbedding(node_features=node_features, edge_features=edge_features,
                             memory=memory, time_encoder=time_encoder, n_layers=n_layers,
                             n_node_features=n_node_features, n_edge_features=n_edge_features,
                             n_time_features=n_time_features,
                             embedding_dimension=embedding_dimension, device=device,
                             dropout=dropout)
  else:
    raise ValueError("Embedding Module {} not supported".format(module_type))
