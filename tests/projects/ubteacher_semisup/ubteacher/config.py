# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
"""A tiny stand-in for detectron2's CfgNode plus the ubteacher config keys."""
import copy


class CfgNode(dict):
    """Attribute-access dict, enough of detectron2.config.CfgNode for this project."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    def __setattr__(self, name, value):
        if self.__dict__.get("_frozen", False):
            raise AttributeError("Attempted to set {} on a frozen config".format(name))
        self[name] = value

    def freeze(self):
        self.__dict__["_frozen"] = True
        for v in self.values():
            if isinstance(v, CfgNode):
                v.freeze()

    def defrost(self):
        self.__dict__["_frozen"] = False
        for v in self.values():
            if isinstance(v, CfgNode):
                v.defrost()

    def clone(self):
        return copy.deepcopy(self)

    def merge_from_list(self, opts):
        assert len(opts) % 2 == 0, "opts must be key/value pairs"
        for full_key, value in zip(opts[0::2], opts[1::2]):
            node = self
            *parents, leaf = full_key.split(".")
            for p in parents:
                node = node[p]
            node[leaf] = value


def get_cfg():
    cfg = CfgNode()
    cfg.SEED = 0
    cfg.OUTPUT_DIR = "./output"
    cfg.MODEL = CfgNode()
    cfg.MODEL.META_ARCHITECTURE = "TwoStagePseudoLabGeneralizedRCNN"
    cfg.MODEL.BACKBONE = CfgNode(OUT_CHANNELS=32)
    cfg.MODEL.ROI_HEADS = CfgNode(NUM_CLASSES=8, HIDDEN_DIM=64, SCORE_EMA_MOMENTUM=0.9)
    cfg.MODEL.RPN = CfgNode(LOSS_WEIGHT=1.0)
    cfg.SOLVER = CfgNode(BASE_LR=0.01, MOMENTUM=0.9, WEIGHT_DECAY=1e-4, MAX_ITER=100,
                         IMG_PER_BATCH_LABEL=2, IMG_PER_BATCH_UNLABEL=2, CHECKPOINT_PERIOD=5000)
    cfg.TEST = CfgNode(EVAL_PERIOD=0, VAL_BATCHES=2)
    cfg.INPUT = CfgNode(SIZE=32)
    return cfg


def add_ubteacher_config(cfg):
    """Add config for semisupnet."""
    cfg.SEMISUPNET = CfgNode()
    cfg.SEMISUPNET.Trainer = "ubteacher"
    cfg.SEMISUPNET.BBOX_THRESHOLD = 0.7
    cfg.SEMISUPNET.TEACHER_UPDATE_ITER = 1
    cfg.SEMISUPNET.BURN_UP_STEP = 2
    cfg.SEMISUPNET.EMA_KEEP_RATE = 0.996
    cfg.SEMISUPNET.UNSUP_LOSS_WEIGHT = 4.0
    cfg.SEMISUPNET.SUP_LOSS_WEIGHT = 0.5
    cfg.SEMISUPNET.HIST_PERIOD = 1000
