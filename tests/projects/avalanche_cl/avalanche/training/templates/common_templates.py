from avalanche.models.utils import avalanche_forward
from avalanche.training.templates.base_sgd import BaseSGDTemplate


class SupervisedTemplate(BaseSGDTemplate):
    """Base class for continual learning strategies (supervised problem type)."""

    @property
    def mb_x(self):
        """Current mini-batch input."""
        return self.mbatch[0]

    @property
    def mb_y(self):
        """Current mini-batch target."""
        return self.mbatch[1]

    @property
    def mb_task_id(self):
        """Current mini-batch task labels."""
        return self.mbatch[2]

    @property
    def mb_idx(self):
        """Index of each sample inside the experience dataset (-1 for replayed samples)."""
        return self.mbatch[3]

    def criterion(self):
        """Loss function for supervised problems."""
        return self._criterion(self.mb_output, self.mb_y)

    def forward(self):
        """Compute the model's output given the current mini-batch."""
        return avalanche_forward(self.model, self.mb_x, self.mb_task_id)
