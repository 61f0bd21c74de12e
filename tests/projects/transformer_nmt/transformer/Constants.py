# Modelled on transformer/Constants.py of jadore801120/attention-is-all-you-need-pytorch.
PAD = 0
UNK = 1
BOS = 2
EOS = 3
