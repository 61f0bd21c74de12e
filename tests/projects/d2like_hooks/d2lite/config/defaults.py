"""A tiny attribute-dict config (stands in for fvcore/yacs CfgNode)."""
import copy


class CfgNode(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name)

    def __setattr__(self, name, value):
        self[name] = value

    def clone(self):
        return copy.deepcopy(self)


_C = CfgNode()
_C.MODEL = CfgNode()
_C.MODEL.NUM_CLASSES = 5
_C.MODEL.BACKBONE_CHANNELS = 16
_C.MODEL.PIXEL_MEAN = [0.0, 0.0, 0.0]
_C.MODEL.PIXEL_STD = [1.0, 1.0, 1.0]
_C.MODEL.INPUT_GRAD_PENALTY = 1.0
_C.MODEL.VIS_PERIOD = 5
_C.INPUT = CfgNode()
_C.INPUT.SIZE = 16
_C.SOLVER = CfgNode()
_C.SOLVER.IMS_PER_BATCH = 8
_C.SOLVER.BASE_LR = 0.02
_C.SOLVER.MOMENTUM = 0.9
_C.SOLVER.WEIGHT_DECAY = 1e-4
_C.SOLVER.STEPS = (1000,)
_C.SOLVER.GAMMA = 0.1
_C.SOLVER.MAX_ITER = 100
_C.SOLVER.IMS_PER_EPOCH = 8000
_C.SEED = 0
_C.OUTPUT_LOG_PERIOD = 20


def get_cfg():
    return _C.clone()
