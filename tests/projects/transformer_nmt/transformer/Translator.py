# Modelled on transformer/Translator.py of jadore801120/attention-is-all-you-need-pytorch:
# Translator(model, beam_size, max_seq_len, ...) holds the model and its init/blank sequence
# buffers and translate_sentence(src_seq) runs the beam search (_get_init_state, then per step
# _model_decode and _get_the_best_score_and_idx), returning the best hypothesis. The original
# wraps the search in torch.no_grad(); this one leaves it to the caller and also returns the
# hypothesis' score for the length-normalised log-likelihood report.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Translator(nn.Module):
    def __init__(self, model, beam_size, max_seq_len, src_pad_idx, trg_pad_idx, trg_bos_idx, trg_eos_idx):
        super().__init__()
        self.alpha = 0.7
        self.beam_size = beam_size
        self.max_seq_len = max_seq_len
        self.src_pad_idx = src_pad_idx
        self.trg_bos_idx = trg_bos_idx
        self.trg_eos_idx = trg_eos_idx
        self.model = model
        self.register_buffer('init_seq', torch.LongTensor([[trg_bos_idx]]))
        self.register_buffer('blank_seqs', torch.full((beam_size, max_seq_len), trg_pad_idx, dtype=torch.long))
        self.blank_seqs[:, 0] = self.trg_bos_idx
        self.register_buffer('len_map', torch.arange(1, max_seq_len + 1, dtype=torch.long).unsqueeze(0))

    def _model_decode(self, trg_seq, enc_output, src_seq):
        dec_output = self.model.decoder(trg_seq, enc_output, src_seq)
        return F.softmax(self.model.trg_word_prj(dec_output), dim=-1)

    def _get_init_state(self, src_seq):
        beam_size = self.beam_size
        enc_output = self.model.encoder(src_seq)
        dec_output = self._model_decode(self.init_seq, enc_output, src_seq)
        best_k_probs, best_k_idx = dec_output[:, -1, :].topk(beam_size)
        scores = torch.log(best_k_probs).view(beam_size)
        gen_seq = self.blank_seqs.clone().detach()
        gen_seq[:, 1] = best_k_idx[0]
        enc_output = enc_output.repeat(beam_size, 1, 1)
        return enc_output, gen_seq, scores

    def _get_the_best_score_and_idx(self, gen_seq, dec_output, scores, step):
        beam_size = self.beam_size
        best_k2_probs, best_k2_idx = dec_output[:, -1, :].topk(beam_size)
        scores = torch.log(best_k2_probs).view(beam_size, -1) + scores.view(beam_size, 1)
        scores, best_k_idx_in_k2 = scores.view(-1).topk(beam_size)
        best_k_r_idxs, best_k_c_idxs = best_k_idx_in_k2 // beam_size, best_k_idx_in_k2 % beam_size
        best_k_idx = best_k2_idx[best_k_r_idxs, best_k_c_idxs]
        gen_seq[:, :step] = gen_seq[best_k_r_idxs, :step]
        gen_seq[:, step] = best_k_idx
        return gen_seq, scores

    def translate_sentence(self, src_seq):
        assert src_seq.size(0) == 1
        src_pad_idx, trg_eos_idx = self.src_pad_idx, self.trg_eos_idx
        max_seq_len, beam_size, alpha = self.max_seq_len, self.beam_size, self.alpha
        enc_output, gen_seq, scores = self._get_init_state(src_seq)
        src_rep = src_seq.repeat(beam_size, 1)
        ans_idx = 0
        for step in range(2, max_seq_len):
            dec_output = self._model_decode(gen_seq[:, :step], enc_output, src_rep)
            gen_seq, scores = self._get_the_best_score_and_idx(gen_seq, dec_output, scores, step)
            eos_locs = gen_seq == trg_eos_idx
            seq_lens, _ = self.len_map.masked_fill(~eos_locs, max_seq_len).min(1)
            if (eos_locs.sum(1) > 0).sum(0).item() == beam_size:
                _, ans_idx = scores.div(seq_lens.float() ** alpha).max(0)
                ans_idx = ans_idx.item()
                break
        return gen_seq[ans_idx][:seq_lens[ans_idx]].tolist(), scores[ans_idx]
