"""The temporal graph network: memory-based node embeddings scored by a merge layer for link
prediction (memory updated at the start of each batch from the previous batch's messages)."""
from collections import defaultdict

import torch
from torch import nn

from memory import GRUMemoryUpdater, LastMessageAggregator, Memory
from utils import MergeLayer


class TimeEncode(nn.Module):
    def __init__(self, dimension):
        super().__init__()
        self.dimension = dimension
        self.w = nn.Linear(1, dimension)
        self.w.weight = nn.Parameter(torch.logspace(0, -9, dimension).reshape(dimension, 1))
        self.w.bias = nn.Parameter(torch.zeros(dimension))

    def forward(self, t):
        return torch.cos(self.w(t.float().unsqueeze(-1)))


class TGN(nn.Module):
    def __init__(self, n_nodes, edge_features, memory_dimension=16, time_dimension=8, embedding_dimension=16):
        super().__init__()
        self.n_nodes = n_nodes
        self.edge_raw_features = edge_features
        self.time_encoder = TimeEncode(time_dimension)
        message_dimension = 2 * memory_dimension + edge_features.shape[1] + time_dimension
        self.memory = Memory(n_nodes, memory_dimension, message_dimension)
        self.message_aggregator = LastMessageAggregator()
        self.memory_updater = GRUMemoryUpdater(self.memory, message_dimension, memory_dimension)
        self.embedding_module = nn.Linear(memory_dimension + time_dimension, embedding_dimension)
        self.affinity_score = MergeLayer(embedding_dimension, embedding_dimension, embedding_dimension, 1)

    def compute_temporal_embeddings(self, source_nodes, destination_nodes, negative_nodes, edge_times, edge_idxs):
        n_samples = len(source_nodes)
        nodes = torch.cat([source_nodes, destination_nodes, negative_nodes])
        positives = torch.cat([source_nodes, destination_nodes]).tolist()
        timestamps = torch.cat([edge_times, edge_times, edge_times])

        # Update memory for all nodes with messages stored in previous batches
        memory, last_update = self.get_updated_memory(list(range(self.n_nodes)), self.memory.messages)
        time_diffs = timestamps - last_update[nodes]
        node_embedding = self.embedding_module(torch.cat([memory[nodes], self.time_encoder(time_diffs)], dim=1))
        source_node_embedding = node_embedding[:n_samples]
        destination_node_embedding = node_embedding[n_samples : 2 * n_samples]
        negative_node_embedding = node_embedding[2 * n_samples :]

        # Persist the updates to the memory only for sources and destinations, then store this
        # batch's interactions as the raw messages the next batch will apply.
        self.update_memory(positives, self.memory.messages)
        self.memory.clear_messages(positives)
        unique_sources, source_id_to_messages = self.get_raw_messages(source_nodes, destination_nodes, edge_times, edge_idxs)
        unique_destinations, destination_id_to_messages = self.get_raw_messages(destination_nodes, source_nodes, edge_times, edge_idxs)
        self.memory.store_raw_messages(unique_sources, source_id_to_messages)
        self.memory.store_raw_messages(unique_destinations, destination_id_to_messages)
        return source_node_embedding, destination_node_embedding, negative_node_embedding

    def compute_edge_probabilities(self, source_nodes, destination_nodes, negative_nodes, edge_times, edge_idxs):
        n_samples = len(source_nodes)
        source_node_embedding, destination_node_embedding, negative_node_embedding = self.compute_temporal_embeddings(
            source_nodes, destination_nodes, negative_nodes, edge_times, edge_idxs
        )
        score = self.affinity_score(
            torch.cat([source_node_embedding, source_node_embedding], dim=0),
            torch.cat([destination_node_embedding, negative_node_embedding]),
        ).squeeze(dim=1)
        pos_score = score[:n_samples]
        neg_score = score[n_samples:]
        return pos_score.sigmoid(), neg_score.sigmoid()

    def update_memory(self, nodes, messages):
        unique_nodes, unique_messages, unique_timestamps = self.message_aggregator.aggregate(nodes, messages)
        self.memory_updater.update_memory(unique_nodes, unique_messages, unique_timestamps)

    def get_updated_memory(self, nodes, messages):
        unique_nodes, unique_messages, unique_timestamps = self.message_aggregator.aggregate(nodes, messages)
        return self.memory_updater.get_updated_memory(unique_nodes, unique_messages, unique_timestamps)

    def get_raw_messages(self, source_nodes, destination_nodes, edge_times, edge_idxs):
        source_memory = self.memory.get_memory(source_nodes)
        destination_memory = self.memory.get_memory(destination_nodes)
        edge_features = self.edge_raw_features[edge_idxs]
        source_time_delta = edge_times - self.memory.get_last_update(source_nodes)
        source_time_delta_encoding = self.time_encoder(source_time_delta)
        source_message = torch.cat([source_memory, destination_memory, edge_features, source_time_delta_encoding], dim=1)
        messages = defaultdict(list)
        for i, node in enumerate(source_nodes.tolist()):
            messages[node].append((source_message[i], edge_times[i]))
        return sorted(set(source_nodes.tolist())), messages
