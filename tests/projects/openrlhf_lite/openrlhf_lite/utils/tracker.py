# Offline stand-in for the wandb / tensorboard logging in PPOTrainer.save_logs_and_checkpoints.


class LocalTracker:
    def __init__(self, config=None):
        self.config = dict(config or {})
        self.history = []

    def log(self, logs: dict):
        row = {}
        for k, v in logs.items():
            row[k] = v if isinstance(v, (int, str)) else float(v)
        self.history.append(row)

    def summary(self):
        return dict(self.history[-1]) if self.history else {}
