# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
from torch.nn import Module


class EnsembleTSModel(Module):
    def __init__(self, modelTeacher, modelStudent):
        super(EnsembleTSModel, self).__init__()
        self.modelTeacher = modelTeacher
        self.modelStudent = modelStudent
