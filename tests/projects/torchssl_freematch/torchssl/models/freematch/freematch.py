"""FreeMatch: self-adaptive thresholding (TorchSSL models/freematch/freematch.py, CPU/fp32 copy)."""
import contextlib
import os
import time
from copy import deepcopy

import torch
import torch.nn.functional as F

from torchssl.models.freematch.freematch_utils import consistency_loss, Get_Scalar
from torchssl.train_utils import AverageMeter, EMA, accuracy, ce_loss


class FreeMatch:
    def __init__(self, net_builder, num_classes, ema_m, lambda_u, lambda_e,
                 hard_label=True, t_fn=None, p_fn=None, it=0, num_eval_iter=1000, tb_log=None, logger=None,
                 device=torch.device('cpu')):
        """
        class Freematch contains setter of data_loader, optimizer, and model update methods.
        Args:
            net_builder: backbone network class (see net_builder in utils.py)
            num_classes: # of label classes
            ema_m: momentum of exponential moving average for eval_model
            lambda_u: ratio of unsupervised loss to supervised loss
            hard_label: If True, consistency regularization use a hard pseudo label.
            it: initial iteration count
            num_eval_iter: freqeuncy of iteration (after 500,000 iters)
            tb_log: tensorboard writer (see train_utils.py)
            logger: logger (see utils.py)
        """
        super(FreeMatch, self).__init__()

        self.loader = {}
        self.num_classes = num_classes
        self.ema_m = ema_m
        self.device = device

        self.model = net_builder(num_classes=num_classes).to(device)
        self.ema_model = None

        self.num_eval_iter = num_eval_iter
        self.lambda_u = lambda_u
        self.lambda_e = lambda_e
        self.tb_log = tb_log
        self.use_hard_label = hard_label

        self.optimizer = None
        self.scheduler = None

        self.it = 0
        self.logger = logger
        self.print_fn = print if logger is None else logger.info

        # self-adaptive thresholding state (initialised in train() or warmup())
        self.time_p = None
        self.p_model = None
        self.label_hist = None

        self.meters = {
            'train/total_loss': AverageMeter(),
            'train/mask_ratio': AverageMeter(),
        }

    def set_data_loader(self, loader_dict):
        self.loader_dict = loader_dict
        self.print_fn(f'[!] data loader keys: {self.loader_dict.keys()}')

    def set_optimizer(self, optimizer, scheduler=None):
        self.optimizer = optimizer
        self.scheduler = scheduler

    def train(self, args, logger=None):
        self.model.train()
        self.ema = EMA(self.model, self.ema_m)
        self.ema.register()
        if args.resume == True:
            self.ema.load(self.ema_model)

        start_batch = time.time()
        best_eval_acc, best_it = 0.0, 0

        amp_cm = torch.autocast if args.amp else contextlib.nullcontext

        if self.p_model is None:
            self.p_model = torch.ones(args.num_classes, device=self.device) / args.num_classes
            self.label_hist = torch.ones(args.num_classes, device=self.device) / args.num_classes
            self.time_p = self.p_model.mean()

        for (_, x_lb, y_lb), (x_ulb_idx, x_ulb_w, x_ulb_s) in zip(self.loader_dict['train_lb'],
                                                                  self.loader_dict['train_ulb']):

            # prevent the training iterations exceed args.num_train_iter
            if self.it > args.num_train_iter:
                break

            end_batch = time.time()
            start_run = time.time()

            num_lb = x_lb.shape[0]
            num_ulb = x_ulb_w.shape[0]
            assert num_ulb == x_ulb_s.shape[0]

            x_lb, x_ulb_w, x_ulb_s = x_lb.to(self.device), x_ulb_w.to(self.device), x_ulb_s.to(self.device)
            y_lb = y_lb.to(self.device)

            inputs = torch.cat((x_lb, x_ulb_w, x_ulb_s))

            # inference and calculate sup/unsup losses
            with amp_cm():
                logits = self.model(inputs)
                logits_x_lb = logits[:num_lb]
                logits_x_ulb_w, logits_x_ulb_s = logits[num_lb:].chunk(2)
                sup_loss = ce_loss(logits_x_lb, y_lb, reduction='mean')

                # hyper-params for update
                self.time_p, self.p_model, self.label_hist = self.cal_time_p_and_p_model(  # known-false: TLK103 (the author marked this leak at another line)
                    logits_x_ulb_w, self.time_p, self.p_model, self.label_hist)
                unsup_loss, mask = consistency_loss(args.dataset, logits_x_ulb_s, logits_x_ulb_w,
                                                    self.time_p, self.p_model,
                                                    'ce', use_hard_labels=args.hard_label)
                total_loss = sup_loss + self.lambda_u * unsup_loss

            # parameter updates
            total_loss.backward()
            if (args.clip > 0):
                torch.nn.utils.clip_grad_norm_(self.model.parameters(), args.clip)
            self.optimizer.step()

            self.scheduler.step()
            self.ema.update()
            self.model.zero_grad()

            end_run = time.time()

            # running averages between two evaluations
            self.meters['train/total_loss'].update(total_loss, num_lb)  # expect: TLK101
            self.meters['train/mask_ratio'].update(1.0 - mask.float().mean().item(), num_ulb)

            # tensorboard_dict update
            tb_dict = {}
            tb_dict['train/sup_loss'] = sup_loss.item()
            tb_dict['train/unsup_loss'] = unsup_loss.item()
            tb_dict['train/total_loss'] = total_loss.item()
            tb_dict['train/time_p'] = self.time_p.item()
            tb_dict['train/mask_ratio'] = 1.0 - mask.float().mean().item()
            tb_dict['train/p_model'] = self.p_model.mean().item()
            tb_dict['train/label_hist'] = self.label_hist.mean().item()
            tb_dict['lr'] = self.optimizer.param_groups[0]['lr']
            tb_dict['train/prefecth_time'] = end_batch - start_batch
            tb_dict['train/run_time'] = end_run - start_run

            if self.it % self.num_eval_iter == 0:
                eval_dict = self.evaluate(args=args)
                tb_dict.update(eval_dict)
                for key, meter in self.meters.items():
                    tb_dict[key + '_avg'] = float(meter.avg)

                if tb_dict['eval/top-1-acc'] > best_eval_acc:
                    best_eval_acc = tb_dict['eval/top-1-acc']
                    best_it = self.it

                self.print_fn(
                    f"{self.it} iteration, USE_EMA: {self.ema_m != 0}, {tb_dict}, "
                    f"BEST_EVAL_ACC: {best_eval_acc}, at {best_it} iters")

                if not self.tb_log is None:
                    self.tb_log.update(tb_dict, self.it)

            self.it += 1
            del tb_dict
            start_batch = time.time()
            if self.it > 0.8 * args.num_train_iter:
                self.num_eval_iter = 1000

        eval_dict = self.evaluate(args=args)
        eval_dict.update({'eval/best_acc': best_eval_acc, 'eval/best_it': best_it})
        return eval_dict

    def cal_time_p_and_p_model(self, logits_x_ulb_w, time_p, p_model, label_hist):
        prob_w = torch.softmax(logits_x_ulb_w, dim=1)
        max_probs, max_idx = torch.max(prob_w, dim=-1)
        time_p = time_p * 0.999 + max_probs.mean() * 0.001  # known-miss: TLK103
        p_model = p_model * 0.999 + torch.mean(prob_w.detach(), dim=0) * 0.001
        hist = torch.bincount(max_idx, minlength=p_model.shape[0]).to(p_model.dtype)
        label_hist = label_hist * 0.999 + (hist / hist.sum()) * 0.001
        return time_p, p_model, label_hist

    @torch.no_grad()
    def evaluate(self, eval_loader=None, args=None):
        self.model.eval()
        self.ema.apply_shadow()
        if eval_loader is None:
            eval_loader = self.loader_dict['eval']
        total_loss = 0.0
        total_num = 0.0
        total_top1 = 0.0
        for _, x, y in eval_loader:
            x, y = x.to(self.device), y.to(self.device)
            num_batch = x.shape[0]
            total_num += num_batch
            logits = self.model(x)
            loss = F.cross_entropy(logits, y, reduction='mean')
            top1, = accuracy(logits, y, topk=(1,))
            total_top1 += top1.item() * num_batch / 100.0
            total_loss += loss.detach() * num_batch
        self.ema.restore()
        self.model.train()
        return {'eval/loss': (total_loss / total_num).item(), 'eval/top-1-acc': total_top1 / total_num}

    def save_model(self, save_name, save_path):
        save_filename = os.path.join(save_path, save_name)
        self.model.eval()
        self.ema.apply_shadow()
        ema_model = deepcopy(self.model.state_dict())
        self.ema.restore()
        self.model.train()
        torch.save({'model': self.model.state_dict(),
                    'optimizer': self.optimizer.state_dict(),
                    'scheduler': self.scheduler.state_dict(),
                    'it': self.it,
                    'p_model': self.p_model,
                    'time_p': self.time_p,
                    'label_hist': self.label_hist,
                    'ema_model': ema_model},
                   save_filename)
        self.print_fn(f"model saved: {save_filename}")
