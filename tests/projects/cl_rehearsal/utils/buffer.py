from typing import Tuple

import numpy as np
import torch


def reservoir(num_seen_examples: int, buffer_size: int) -> int:
    """
    Reservoir sampling algorithm.

    Returns the target index if the current example is sampled, else -1.
    """
    if num_seen_examples < buffer_size:
        return num_seen_examples

    rand = np.random.randint(0, num_seen_examples + 1)
    if rand < buffer_size:
        return rand
    else:
        return -1


class Buffer:
    """
    The memory buffer of rehearsal methods.
    """

    def __init__(self, buffer_size, device="cpu"):
        self.buffer_size = buffer_size
        self.device = device
        self.num_seen_examples = 0
        self.attributes = ['examples', 'labels', 'logits', 'task_labels']
        self.confidences = [None] * buffer_size

    def __len__(self):
        return min(self.num_seen_examples, self.buffer_size)

    def init_tensors(self, examples, labels, logits, task_labels) -> None:
        for attr_str, attr in zip(self.attributes, (examples, labels, logits, task_labels)):
            if attr is not None and not hasattr(self, attr_str):
                typ = torch.int64 if attr_str.endswith('els') else torch.float32
                setattr(self, attr_str, torch.zeros((self.buffer_size, *attr.shape[1:]), dtype=typ, device=self.device))

    def add_data(self, examples, labels=None, logits=None, task_labels=None, confidences=None):
        """
        Adds the data to the memory buffer according to the reservoir strategy.
        """
        if not hasattr(self, 'examples'):
            self.init_tensors(examples, labels, logits, task_labels)

        for i in range(examples.shape[0]):
            index = reservoir(self.num_seen_examples, self.buffer_size)
            self.num_seen_examples += 1
            if index >= 0:
                self.examples[index] = examples[i].to(self.device)
                if labels is not None:
                    self.labels[index] = labels[i].to(self.device)
                if logits is not None:
                    self.logits[index] = logits[i].to(self.device)  # known-false: TLK102 (the author counted this store as the state the retain_graph=True at models/derpp.py:35 papers over, fixed at derpp.py:42 with logits=outputs.data; storing a detached copy here ends the growth too)
                if task_labels is not None:
                    self.task_labels[index] = task_labels[i].to(self.device)
                if confidences is not None:
                    self.confidences[index] = confidences[i]  # expect: TLK102

    def get_data(self, size: int, transform=None, return_index=False, device=None) -> Tuple:
        """
        Random samples a batch of size items.
        """
        target_device = self.device if device is None else device
        num_avail_samples = min(self.num_seen_examples, self.examples.shape[0])
        size = min(size, num_avail_samples)

        choice = np.random.choice(num_avail_samples, size=size, replace=False)
        if transform is None:
            def transform(x): return x

        ret_tuple = (torch.stack([transform(ee) for ee in self.examples[choice]]).to(target_device),)
        for attr_str in self.attributes[1:]:
            if hasattr(self, attr_str):
                attr = getattr(self, attr_str)
                ret_tuple += (attr[choice].to(target_device),)

        if not return_index:
            return ret_tuple
        return (torch.tensor(choice).to(target_device),) + ret_tuple

    def get_data_by_index(self, indexes, transform=None, device=None) -> Tuple:
        target_device = self.device if device is None else device
        if transform is None:
            def transform(x): return x
        ret_tuple = (torch.stack([transform(ee) for ee in self.examples[indexes]]).to(target_device),)
        for attr_str in self.attributes[1:]:
            if hasattr(self, attr_str):
                ret_tuple += (getattr(self, attr_str)[indexes].to(target_device),)
        return ret_tuple

    def least_confident(self, k: int):
        scored = [(float(c), i) for i, c in enumerate(self.confidences[:len(self)]) if c is not None]
        scored.sort()
        return torch.tensor([i for _, i in scored[:k]], dtype=torch.long)

    @torch.no_grad()
    def update_logits(self, indexes, new_logits) -> None:
        self.logits[indexes] = new_logits.to(self.device)

    def is_empty(self) -> bool:
        return self.num_seen_examples == 0

    def empty(self) -> None:
        for attr_str in self.attributes:
            if hasattr(self, attr_str):
                delattr(self, attr_str)
        self.confidences = [None] * self.buffer_size
        self.num_seen_examples = 0
