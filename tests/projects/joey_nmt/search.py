import torch

from helpers import BOS_ID, EOS_ID


@torch.no_grad()
def greedy(model, src, max_output_length):
    encoder_output, encoder_hidden, doc_state = model.encode(src)
    hidden = model.decoder.init_hidden(encoder_hidden, doc_state)
    prev = torch.full((src.size(0),), BOS_ID, dtype=torch.long)
    outputs = []
    for _ in range(max_output_length):
        logits, hidden, _ = model.decoder.forward_step(prev, hidden, encoder_output)
        prev = logits.argmax(-1)
        outputs.append(prev)
    return torch.stack(outputs, dim=1)


def length_penalty(length, alpha):
    return ((5.0 + length) / 6.0) ** alpha


class BeamSearcher:
    """Sentence-wise beam search; remembers the best normalised scores of every call (length-penalty tuning)."""

    def __init__(self, beam_size=3, alpha=0.6, max_output_length=8):
        self.beam_size = beam_size
        self.alpha = alpha
        self.max_output_length = max_output_length
        self.score_log = []

    def _search_one(self, model, src_row):
        encoder_output, encoder_hidden, doc_state = model.encode(src_row.unsqueeze(0))
        hidden = model.decoder.init_hidden(encoder_hidden, doc_state)
        tokens = torch.full((1, 1), BOS_ID, dtype=torch.long)
        scores = torch.zeros(1)
        finished = []
        for step in range(1, self.max_output_length + 1):
            n = tokens.size(0)
            logits, hidden, _ = model.decoder.forward_step(tokens[:, -1], hidden, encoder_output.expand(n, -1, -1))
            log_probs = logits.log_softmax(-1)
            vocab = log_probs.size(-1)
            candidates = (scores.unsqueeze(1) + log_probs).view(-1)
            top, index = candidates.topk(min(self.beam_size, candidates.numel()))
            origin, next_tok = index // vocab, index % vocab
            tokens = torch.cat([tokens[origin], next_tok.unsqueeze(1)], dim=1)
            hidden, scores = hidden[origin], top
            done = next_tok == EOS_ID
            for j in done.nonzero().flatten().tolist():
                finished.append((scores[j] / length_penalty(step, self.alpha), tokens[j, 1:-1]))
            if bool(done.all()):
                break
            tokens, hidden, scores = tokens[~done], hidden[~done], scores[~done]
        if not finished:
            finished = [(scores[j] / length_penalty(self.max_output_length, self.alpha), tokens[j, 1:])
                        for j in range(scores.size(0))]
        return max(finished, key=lambda item: float(item[0]))

    def __call__(self, model, src):
        hyps, best = [], []
        for row in src:
            score, tokens = self._search_one(model, row)
            hyps.append(tokens.tolist())
            best.append(score)
        best_scores = torch.stack(best)
        self.score_log.append(best_scores)  # known-miss: TLK102
        return hyps, best_scores
