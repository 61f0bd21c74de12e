from collections import defaultdict


class Visualizer:
    """Offline stand-in for the visdom visualizer: keeps scalar curves and sample predictions until close()."""

    def __init__(self, env="main"):
        self.env = env
        self.curves = defaultdict(list)
        self.samples = []

    def vis_scalar(self, name, x, y):
        self.curves[name].append((x, float(y)))

    def add_sample(self, itr, logits):
        # predictions to render at the end of the run (colourised argmax)
        self.samples.append((itr, logits))

    def vis_table(self, name, table):
        self.curves[name + "/table"].append(dict(table))

    def close(self):
        rendered = [(itr, logits.argmax(0).float().mean().item()) for itr, logits in self.samples]
        self.samples = []
        return rendered
