"""Per-node memory of a temporal graph network, the raw messages waiting for it, and the GRU
that folds a node's latest message into its memory."""
from collections import defaultdict
from copy import deepcopy

import torch
from torch import nn


class Memory(nn.Module):
    def __init__(self, n_nodes, memory_dimension, message_dimension, device="cpu"):
        super().__init__()
        self.n_nodes = n_nodes
        self.memory_dimension = memory_dimension
        self.message_dimension = message_dimension
        self.device = device
        self.__init_memory__()

    def __init_memory__(self):
        """Initializes the memory to all zeros. It should be called at the start of each epoch."""
        self.memory = nn.Parameter(torch.zeros((self.n_nodes, self.memory_dimension), device=self.device), requires_grad=False)
        self.last_update = nn.Parameter(torch.zeros(self.n_nodes, device=self.device), requires_grad=False)
        self.messages = defaultdict(list)

    def store_raw_messages(self, nodes, node_id_to_messages):
        for node in nodes:
            self.messages[node].extend(node_id_to_messages[node])

    def get_memory(self, node_idxs):
        return self.memory[node_idxs, :]

    def set_memory(self, node_idxs, values):
        self.memory[node_idxs, :] = values

    def get_last_update(self, node_idxs):
        return self.last_update[node_idxs]

    def backup_memory(self):
        messages_clone = {k: [(x[0].clone(), x[1].clone()) for x in v] for k, v in self.messages.items()}
        return self.memory.data.clone(), self.last_update.data.clone(), messages_clone

    def restore_memory(self, memory_backup):
        self.memory.data, self.last_update.data = memory_backup[0].clone(), memory_backup[1].clone()
        self.messages = defaultdict(list)
        for k, v in memory_backup[2].items():
            self.messages[k] = [(x[0].clone(), x[1].clone()) for x in v]

    def detach_memory(self):
        self.memory.detach_()
        # Detach all stored messages
        for k, v in self.messages.items():
            self.messages[k] = [(message.detach(), timestamp) for message, timestamp in v]

    def clear_messages(self, nodes):
        for node in nodes:
            self.messages[node] = []


class LastMessageAggregator:
    """Keeps, for every node, only its most recent message."""

    def aggregate(self, node_ids, messages):
        to_update_node_ids, unique_messages, unique_timestamps = [], [], []
        for node_id in sorted(set(node_ids)):
            if len(messages[node_id]) > 0:
                to_update_node_ids.append(node_id)
                unique_messages.append(messages[node_id][-1][0])
                unique_timestamps.append(messages[node_id][-1][1])
        if to_update_node_ids:
            unique_messages = torch.stack(unique_messages)
            unique_timestamps = torch.stack(unique_timestamps)
        return to_update_node_ids, unique_messages, unique_timestamps


class GRUMemoryUpdater(nn.Module):
    def __init__(self, memory, message_dimension, memory_dimension):
        super().__init__()
        self.memory = memory
        self.memory_updater = nn.GRUCell(input_size=message_dimension, hidden_size=memory_dimension)

    def update_memory(self, unique_node_ids, unique_messages, timestamps):
        if len(unique_node_ids) <= 0:
            return
        memory = self.memory.get_memory(unique_node_ids)
        self.memory.last_update[unique_node_ids] = timestamps
        updated_memory = self.memory_updater(unique_messages, memory)
        self.memory.set_memory(unique_node_ids, updated_memory)

    def get_updated_memory(self, unique_node_ids, unique_messages, timestamps):
        if len(unique_node_ids) <= 0:
            return self.memory.memory.data.clone(), self.memory.last_update.data.clone()
        updated_memory = self.memory.memory.data.clone()
        updated_memory[unique_node_ids] = self.memory_updater(unique_messages, updated_memory[unique_node_ids])
        updated_last_update = self.memory.last_update.data.clone()
        updated_last_update[unique_node_ids] = timestamps
        return updated_memory, updated_last_update


def clone_memory(memory):
    return deepcopy(memory)
