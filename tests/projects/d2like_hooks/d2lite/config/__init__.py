from .defaults import get_cfg, CfgNode
