# Modelled on exp/exp_informer.py of zhouhaoyi/Informer2020: Exp_Informer with vali(), train()
# and test(), and _process_one_batch building the decoder input from the label window. Unlike
# the original, the model, criterion, early stopping and loss recorder are built in
# main_informer.py and handed to the constructor, and the encoder state can be carried over
# consecutive (unshuffled) windows,
# with one optimizer step per pass over the series.
import torch

from utils.tools import adjust_learning_rate


class Exp_Informer(object):
    def __init__(self, args, model, criterion, early_stopping, recorder, tracker):
        self.args = args
        self.model = model
        self.criterion = criterion
        self.early_stopping = early_stopping
        self.recorder = recorder
        self.tracker = tracker
        self.enc_state = None

    def _process_one_batch(self, batch_x, batch_y, enc_state=None):
        dec_inp = torch.zeros([batch_y.shape[0], self.args.pred_len, batch_y.shape[-1]])
        dec_inp = torch.cat([batch_y[:, :self.args.label_len, :], dec_inp], dim=1)
        outputs, enc_state = self.model(batch_x, dec_inp, enc_state)
        batch_y = batch_y[:, -self.args.pred_len:, :]
        return outputs, batch_y, enc_state

    def vali(self, vali_loader):
        self.model.eval()
        total_loss = []
        for i, (batch_x, batch_y) in enumerate(vali_loader):
            pred, true, _ = self._process_one_batch(batch_x, batch_y)
            loss = self.criterion(pred, true)
            total_loss.append(loss)  # expect: TLK102
        self.model.train()
        return torch.stack(total_loss).mean()

    def train(self, train_loader, vali_loader, path='checkpoints'):
        model_optim = torch.optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        for epoch in range(self.args.train_epochs):
            self.recorder.reset()
            self.model.train()
            self.enc_state = None
            # stateful pass over the consecutive windows of the series: gradients accumulate
            # over the whole epoch and the optimizer steps once at its end
            model_optim.zero_grad()
            for i, (batch_x, batch_y) in enumerate(train_loader):
                pred, true, self.enc_state = self._process_one_batch(batch_x, batch_y, self.enc_state)
                loss = self.criterion(pred, true)
                self.recorder.update('train', loss, batch_x.size(0))  # expect: TLK101 (utils/tools.py)
                self.recorder.update('train_item', loss.item(), batch_x.size(0))  # clean: .item() before the recorder
                loss.backward(retain_graph=True)  # expect: TLK202
            model_optim.step()
            train_loss = self.recorder.average('train_item')
            vali_loss = self.vali(vali_loader)
            self.early_stopping(vali_loss, self.model, path)  # keeps vali's loss: reported where vali keeps its list attached (line 35)
            print("Epoch: {0} | Train Loss: {1:.5f} Vali Loss: {2:.5f}".format(epoch + 1, train_loss, float(vali_loss)))
            if self.early_stopping.early_stop:
                break
            adjust_learning_rate(model_optim, epoch + 1, self.args)
        return self.model

    def test(self, test_loader):
        self.model.eval()
        for i, (batch_x, batch_y) in enumerate(test_loader):
            pred, true, _ = self._process_one_batch(batch_x, batch_y)
            self.tracker.update(pred, true)  # clean: MetricTracker.update (utils/metrics.py) detaches
        return self.tracker.compute()
