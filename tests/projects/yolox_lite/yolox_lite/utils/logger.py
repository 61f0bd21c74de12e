# Offline stand-in for yolox/utils/logger.py::WandbLogger: keeps the logged rows in memory
# (the real one ships them to wandb) so that result_plot can draw the curves at the end.
import logging

logger = logging.getLogger("yolox_lite")


class WandbLogger:
    def __init__(self, project=None, name=None, config=None):
        self.project = project
        self.name = name
        self.config = config or {}
        self.rows = []

    @classmethod
    def initialize_wandb_logger(cls, args, exp):
        return cls(project="yolox_lite", name=args.experiment_name, config=vars(args))

    def log_metrics(self, metrics, step=None):
        row = {}
        for k, v in metrics.items():
            row[k] = float(v) if v is not None else None
        row["step"] = step
        self.rows.append(row)

    def finish(self):
        logger.info("wandb offline: %d rows", len(self.rows))
