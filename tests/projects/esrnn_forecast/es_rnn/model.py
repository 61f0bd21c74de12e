import torch
import torch.nn as nn


class ESRNN(nn.Module):
    """Exponential-smoothing level per series + a shared GRU on level-normalised windows."""

    def __init__(self, num_series, config):
        super(ESRNN, self).__init__()
        self.config = config
        self.input_size = config['input_size']
        self.output_size = config['output_size']
        self.lev_sms = nn.Parameter(torch.zeros(num_series, 1))
        self.rnn = nn.GRU(1, config['state_hsize'], batch_first=True)
        self.scoring = nn.Linear(config['state_hsize'], self.output_size)
        self.register_buffer('lvp_ema', torch.zeros(()))

    def smooth(self, y, level_prev):
        alpha = torch.sigmoid(self.lev_sms)
        lev = y[:, :1] if level_prev is None else level_prev
        levels = []
        for t in range(y.shape[1]):
            lev = alpha * y[:, t:t + 1] + (1 - alpha) * lev
            levels.append(lev)
        return torch.cat(levels, dim=1)

    def forward(self, y, level_prev=None):
        levels = self.smooth(y, level_prev)
        # level variability penalty (Smyl): discourage wiggly levels
        log_diff = torch.log(levels[:, 1:] / levels[:, :-1])
        lvp = (log_diff[:, 1:] - log_diff[:, :-1]).pow(2).mean()
        if self.training:
            self.lvp_ema = 0.99 * self.lvp_ema + 0.01 * lvp  # expect: TLK103

        window = y[:, -self.input_size:] / levels[:, -1:]
        out, _ = self.rnn(torch.log(window).unsqueeze(-1))
        pred_norm = self.scoring(out[:, -1])
        pred = torch.exp(pred_norm) * levels[:, -1:]
        return pred, pred_norm, levels[:, -1:], lvp
