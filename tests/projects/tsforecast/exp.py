import os
import time
import warnings
from collections import defaultdict

import torch
import torch.nn as nn
from torch import optim

from data import data_provider
from losses import ForecastLoss
from models import model_dict
from tools import AverageMeter, EarlyStopping, adjust_learning_rate, ensure_dir, metric

warnings.filterwarnings("ignore")


class Exp_Basic(object):
    def __init__(self, args):
        self.args = args
        self.model_dict = model_dict
        self.device = self._acquire_device()
        self.model = self._build_model().to(self.device)

    def _build_model(self):
        raise NotImplementedError

    def _acquire_device(self):
        if self.args.use_gpu and torch.cuda.is_available():
            device = torch.device("cuda:{}".format(self.args.gpu))
            print("Use GPU: cuda:{}".format(self.args.gpu))
        else:
            device = torch.device("cpu")
            print("Use CPU")
        return device

    def _get_data(self, flag):
        pass

    def vali(self, *args):
        pass

    def train(self, setting):
        pass

    def test(self, setting):
        pass


class Exp_Long_Term_Forecast(Exp_Basic):
    def __init__(self, args):
        super(Exp_Long_Term_Forecast, self).__init__(args)
        self.meters = defaultdict(AverageMeter)
        self.history = []

    def _build_model(self):
        model = self.model_dict[self.args.model](self.args).float()
        if self.args.use_multi_gpu and self.args.use_gpu:
            model = nn.DataParallel(model, device_ids=self.args.device_ids)
        return model

    def _get_data(self, flag):
        data_set, data_loader = data_provider(self.args, flag)
        return data_set, data_loader

    def _select_optimizer(self):
        model_optim = optim.Adam(self.model.parameters(), lr=self.args.learning_rate)
        return model_optim

    def _select_criterion(self):
        criterion = ForecastLoss(smape_weight=self.args.smape_weight)
        return criterion

    def _decoder_input(self, batch_y):
        dec_inp = torch.zeros_like(batch_y[:, -self.args.pred_len:, :]).float()
        dec_inp = torch.cat([batch_y[:, :self.args.label_len, :], dec_inp], dim=1).float().to(self.device)
        return dec_inp

    def vali(self, vali_data, vali_loader, criterion):
        total_loss = []
        preds, trues = [], []
        self.model.eval()
        with torch.no_grad():
            for i, (batch_x, batch_y, batch_x_mark, batch_y_mark) in enumerate(vali_loader):
                batch_x = batch_x.float().to(self.device)
                batch_y = batch_y.float()
                batch_x_mark = batch_x_mark.float().to(self.device)
                batch_y_mark = batch_y_mark.float().to(self.device)

                dec_inp = self._decoder_input(batch_y)
                outputs = self.model(batch_x, batch_x_mark, dec_inp, batch_y_mark)
                f_dim = -1 if self.args.features == "MS" else 0
                outputs = outputs[:, -self.args.pred_len:, f_dim:]
                batch_y = batch_y[:, -self.args.pred_len:, f_dim:].to(self.device)

                pred = outputs.detach()
                true = batch_y.detach()
                preds.append(pred)
                trues.append(true)

                loss, _ = criterion(pred, true)
                total_loss.append(loss.item())
        total_loss = sum(total_loss) / len(total_loss)
        self.model.train()
        return total_loss, torch.cat(preds), torch.cat(trues)

    def train(self, setting):
        train_data, train_loader = self._get_data(flag="train")
        vali_data, vali_loader = self._get_data(flag="val")
        test_data, test_loader = self._get_data(flag="test")

        path = os.path.join(self.args.checkpoints, setting)
        ensure_dir(path)

        time_now = time.time()

        train_steps = len(train_loader)
        early_stopping = EarlyStopping(patience=self.args.patience, verbose=True)

        model_optim = self._select_optimizer()
        criterion = self._select_criterion()

        if self.args.use_amp:
            scaler = torch.amp.GradScaler("cuda")

        global_step = 0
        accum_loss = None
        for epoch in range(self.args.train_epochs):
            iter_count = 0
            train_loss = []

            self.model.train()
            epoch_time = time.time()
            for i, (batch_x, batch_y, batch_x_mark, batch_y_mark) in enumerate(train_loader):
                iter_count += 1
                batch_x = batch_x.float().to(self.device)
                batch_y = batch_y.float().to(self.device)
                batch_x_mark = batch_x_mark.float().to(self.device)
                batch_y_mark = batch_y_mark.float().to(self.device)

                dec_inp = self._decoder_input(batch_y)

                with torch.autocast(device_type=self.device.type, enabled=bool(self.args.use_amp)):
                    outputs = self.model(batch_x, batch_x_mark, dec_inp, batch_y_mark)
                    f_dim = -1 if self.args.features == "MS" else 0
                    outputs = outputs[:, -self.args.pred_len:, f_dim:]
                    batch_y = batch_y[:, -self.args.pred_len:, f_dim:].to(self.device)
                    loss, loss_parts = criterion(outputs, batch_y)
                train_loss.append(loss.item())
                for name, value in loss_parts.items():
                    self.meters[name].update(value, batch_x.size(0))  # expect: TLK101

                # gradient accumulation over `accum_iter` micro-batches
                if accum_loss is None:
                    accum_loss = loss / self.args.accum_iter
                else:
                    accum_loss = accum_loss + loss / self.args.accum_iter

                if (global_step + 1) % self.args.accum_iter == 0:
                    if self.args.use_amp:
                        scaler.scale(accum_loss).backward()
                        scaler.step(model_optim)
                        scaler.update()
                    else:
                        accum_loss.backward(retain_graph=True)  # expect: TLK202
                        nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip_grad)
                        model_optim.step()
                    model_optim.zero_grad()
                    accum_loss = None

                if (i + 1) % self.args.log_interval == 0:
                    print("\titers: {0}, epoch: {1} | loss: {2:.7f}".format(i + 1, epoch + 1, loss.item()))
                    print("\t" + "  ".join(str(m) for m in self.meters.values()))
                    speed = (time.time() - time_now) / iter_count
                    left_time = speed * ((self.args.train_epochs - epoch) * train_steps - i)
                    print("\tspeed: {:.4f}s/iter; left time: {:.4f}s".format(speed, left_time))
                    iter_count = 0
                    time_now = time.time()

                global_step += 1
                if self.args.max_steps and global_step >= self.args.max_steps:
                    break

            print("Epoch: {} cost time: {}".format(epoch + 1, time.time() - epoch_time))
            train_loss = sum(train_loss) / len(train_loss)
            vali_loss, _, _ = self.vali(vali_data, vali_loader, criterion)
            test_loss, _, _ = self.vali(test_data, test_loader, criterion)

            print("Epoch: {0}, Steps: {1} | Train Loss: {2:.7f} Vali Loss: {3:.7f} Test Loss: {4:.7f}".format(
                epoch + 1, train_steps, train_loss, vali_loss, test_loss))
            self.history.append({"epoch": epoch + 1, "train_loss": train_loss, "vali_loss": vali_loss,
                                 "test_loss": test_loss, "step": global_step})
            early_stopping(vali_loss, self.model, path)
            if early_stopping.early_stop:
                print("Early stopping")
                break
            if self.args.max_steps and global_step >= self.args.max_steps:
                break

            adjust_learning_rate(model_optim, epoch + 1, self.args)

        best_model_path = path + "/" + "checkpoint.pth"
        self.model.load_state_dict(torch.load(best_model_path))
        return self.model

    def test(self, setting, test=0):
        test_data, test_loader = self._get_data(flag="test")
        if test:
            print("loading model")
            self.model.load_state_dict(torch.load(os.path.join(self.args.checkpoints, setting, "checkpoint.pth")))
        _, preds, trues = self.vali(test_data, test_loader, self._select_criterion())
        print("test shape:", preds.shape, trues.shape)
        mae, mse, rmse, rse = metric(preds, trues)
        print("mse:{}, mae:{}, rmse:{}, rse:{}".format(mse, mae, rmse, rse))
        return {"mse": mse, "mae": mae}
