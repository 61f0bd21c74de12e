import torch


class GreedyDecoder(object):
    def __init__(self, labels, blank_index=0):
        self.labels = labels
        self.int_to_char = dict([(i, c) for (i, c) in enumerate(labels)])
        self.blank_index = blank_index
        self.confidences = []

    def convert_to_strings(self, sequences, sizes):
        strings = []
        for x in range(len(sequences)):
            seq_len = int(sizes[x])
            strings.append(self.process_string(sequences[x], seq_len))
        return strings

    def process_string(self, sequence, size):
        string = ''
        prev = None
        for i in range(size):
            c = int(sequence[i])
            if c != prev and c != self.blank_index:
                string += self.int_to_char[c]
            prev = c
        return string

    def decode(self, probs, sizes):
        """probs: N x T x C (log) posteriors."""
        max_probs, max_idx = torch.max(probs, 2)
        self.confidences.append(max_probs.mean())  # CLEAN: decode() is only called from evaluate() under torch.no_grad()
        return self.convert_to_strings(max_idx, sizes)

    @staticmethod
    def cer(s1, s2):
        d = list(range(len(s2) + 1))
        for i, a in enumerate(s1, 1):
            prev, d[0] = d[0], i
            for j, b in enumerate(s2, 1):
                prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (a != b))
        return d[len(s2)]
