from typing import Any, Dict, List

import numpy as np


def print_mean_accuracy(mean_acc, task_number: int, setting: str, verbose: bool) -> None:
    if not verbose:
        return
    mean_acc_class_il, mean_acc_task_il = mean_acc
    print('Accuracy for {} task(s): \t [Class-IL]: {} % \t [Task-IL]: {} %'.format(
        task_number, round(mean_acc_class_il, 2), round(mean_acc_task_il, 2)))


class Logger:
    def __init__(self, setting_str: str, dataset_str: str, model_str: str) -> None:
        self.accs: List[float] = []
        self.accs_mask_classes: List[float] = []
        self.setting = setting_str
        self.dataset = dataset_str
        self.model = model_str
        self.online: Dict[str, float] = {}

    def log(self, mean_acc) -> None:
        mean_acc_class_il, mean_acc_task_il = mean_acc
        self.accs.append(float(mean_acc_class_il))
        self.accs_mask_classes.append(float(mean_acc_task_il))

    def log_online(self, loss: float, accuracy: float) -> None:
        self.online = {'online_loss': float(loss), 'online_acc': float(accuracy)}

    def dump(self) -> Dict[str, Any]:
        return {
            'accs': list(self.accs),
            'accs_mask_classes': list(self.accs_mask_classes),
            'mean_acc': float(np.mean(self.accs)) if self.accs else 0.0,
            **self.online,
        }
