# Modelled on translate.py of jadore801120/attention-is-all-you-need-pytorch: load the model,
# build a Translator, and translate the test sentences one by one under torch.no_grad(),
# writing each predicted line (here also collecting the hypotheses' scores).
import torch


def translate_corpus(translator, sentences):
    translator.eval()
    lines, scores = [], []
    with torch.no_grad():
        for src_seq in sentences:
            pred_seq, score = translator.translate_sentence(src_seq.unsqueeze(0))
            lines.append(pred_seq)
            scores.append(score)
    translator.train()
    return lines, torch.stack(scores)
