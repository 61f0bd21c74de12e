# Source: https://github.com/gentaiscool/end2end-asr-pytorch/pull/41
# Shape: the same CTC validation after the fix: the loop runs under torch.no_grad(), so the summed loss tensor carries no graph; the training epoch beside it accumulates loss.item().
# Verdict: clean
import torch
import torch.nn.functional as F


def greedy_decode(log_probs, lengths, blank=0):
    hyps = []
    for seq, n in zip(log_probs.argmax(-1), lengths):
        prev, out = blank, []
        for tok in seq[: int(n)].tolist():
            if tok != prev and tok != blank:
                out.append(tok)
            prev = tok
        hyps.append(out)
    return hyps


def train_one_epoch(asr_model, train_loader, opt, clip=400.0, blank=0):
    asr_model.train()
    epoch_loss = 0.0
    for feats, feat_lens, targets, target_lens in train_loader:
        opt.zero_grad()
        log_probs = asr_model(feats).log_softmax(-1)
        ctc = F.ctc_loss(log_probs.transpose(0, 1), targets, feat_lens, target_lens, blank=blank, zero_infinity=True)
        ctc.backward()
        torch.nn.utils.clip_grad_norm_(asr_model.parameters(), clip)
        opt.step()
        epoch_loss += ctc.item()
    return epoch_loss / len(train_loader)


def evaluate(asr_model, valid_loader, blank=0):
    asr_model.eval()
    total_loss, n_tokens, n_correct_seqs = 0, 0, 0
    with torch.no_grad():
        for feats, feat_lens, targets, target_lens in valid_loader:
            log_probs = asr_model(feats).log_softmax(-1)
            total_loss += F.ctc_loss(log_probs.transpose(0, 1), targets, feat_lens, target_lens,
                                     blank=blank, zero_infinity=True)
            for hyp, ref, n in zip(greedy_decode(log_probs, feat_lens, blank), targets, target_lens):
                n_correct_seqs += int(hyp == ref[: int(n)].tolist())
                n_tokens += int(n)
    return total_loss.item() / len(valid_loader), n_correct_seqs
