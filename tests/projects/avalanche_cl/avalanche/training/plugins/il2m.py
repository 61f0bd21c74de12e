import torch

from avalanche.training.plugins.strategy_plugin import SupervisedPlugin


class IL2MPlugin(SupervisedPlugin):
    """
    Class Incremental Learning With Dual Memory (IL2M) plugin (score rectification part).

    Belouadah, E. and Popescu, A. "IL2M: Class Incremental Learning With Dual
    Memory." ICCV 2019. Implementation based on FACIL / avalanche, except that
    the class statistics are gathered online from the training mini-batches
    instead of an extra pass over the experience; the exemplar memory itself is
    provided by a ReplayPlugin.
    """

    def __init__(self, n_classes: int):
        super().__init__()
        self.n_classes = n_classes
        # to store statistics for the classes as learned in the current incremental state
        self.current_classes_means = [0 for _ in range(self.n_classes)]
        # to store statistics for past classes as learned in the incremental state in which they were first seen
        self.init_classes_means = [0 for _ in range(self.n_classes)]
        # to store statistics for model confidence in different states (i.e. avg top-1 pred scores)
        self.models_confidence = []
        # to store the mapping between classes and the incremental state in which they were first seen
        self.classes2exp = [-1 for _ in range(self.n_classes)]
        self._reset_running_stats()

    def _reset_running_stats(self):
        self.class_score_sums = torch.zeros(self.n_classes)
        self.classes_counts = torch.zeros(self.n_classes)
        self.confidence_sum = torch.zeros(())
        self.confidence_count = 0

    def before_training_exp(self, strategy, **kwargs):
        self._reset_running_stats()

    def before_backward(self, strategy, **kwargs):
        # statistics of the scores the model gives while it is being trained
        self._accumulate_class_scores(strategy.mb_output, strategy.mb_y)
        self._accumulate_confidence(strategy.mb_output, strategy.mb_y, strategy.experience)

    def _accumulate_class_scores(self, outputs, targets):
        """Running sum of the prediction score of the true class, per class."""
        scores = torch.softmax(outputs, dim=1)
        true_scores = scores.gather(1, targets.unsqueeze(1)).squeeze(1)
        batch_sums = torch.zeros(self.n_classes, device=outputs.device).index_add(0, targets, true_scores)
        self.class_score_sums = self.class_score_sums + batch_sums  # expect: TLK101
        self.classes_counts += torch.bincount(targets, minlength=self.n_classes).float()

    @torch.no_grad()
    def _accumulate_confidence(self, outputs, targets, experience):
        """Running sum of the top-1 score on samples of the new classes."""
        scores = torch.softmax(outputs, dim=1)
        new_classes = torch.tensor(experience.classes_in_this_experience, device=targets.device)
        is_new = torch.isin(targets, new_classes)
        self.confidence_sum += scores.max(dim=1).values[is_new].sum()
        self.confidence_count += int(is_new.sum())

    def after_training_exp(self, strategy, **kwargs):
        experience = strategy.experience
        means = self.class_score_sums / self.classes_counts.clamp(min=1)
        # normalize by corresponding number of samples
        for cls in experience.previous_classes:
            self.current_classes_means[cls] = means[cls]
        for cls in experience.classes_in_this_experience:
            self.init_classes_means[cls] = means[cls]
            # store the mapping between classes and the incremental state in which they are first seen
            self.classes2exp[cls] = experience.current_experience
        self.models_confidence.append(float(self.confidence_sum) / max(1, self.confidence_count))

    @torch.no_grad()
    def after_eval_forward(self, strategy, **kwargs):
        if len(self.models_confidence) < 2:
            return
        old_classes = strategy.experience.previous_classes
        outputs = torch.softmax(strategy.mb_output, dim=1)
        for cls in old_classes:
            exp = self.classes2exp[cls]
            if exp < 0 or not torch.is_tensor(self.current_classes_means[cls]):
                continue
            ratio = self.init_classes_means[cls] / self.current_classes_means[cls].clamp(min=1e-8)
            conf = self.models_confidence[-1] / self.models_confidence[exp]
            outputs[:, cls] *= ratio * conf
        strategy.mb_output = outputs
