# Copyright (c) Facebook, Inc. and its affiliates. All Rights Reserved
from .config import add_ubteacher_config, get_cfg  # noqa: F401
