import logging
import numpy as np
import torch
from torch import nn
from torch import optim
from torch.nn import functional as F
from torch.utils.data import DataLoader
from models.base import BaseLearner
from utils.inc_net import AdapterNet
from utils.proto_bank import ProtoBank
from utils.toolkit import count_parameters, tensor2numpy, DriftTracker

EPSILON = 1e-8


class ProtoAug(BaseLearner):
    """Adapter tuning on a frozen backbone.  Old classes are protected by a
    prototype-contrast term against online class prototypes plus logit
    distillation from the frozen previous model."""

    def __init__(self, args):
        super().__init__(args)
        self._network = AdapterNet(args, True)
        self._proto_bank = ProtoBank(self._network.feature_dim, momentum=args["proto_momentum"])
        self._drift = DriftTracker()
        self._probe_x = None

    def after_task(self):
        self._known_classes = self._total_classes
        self._old_network = self._network.copy().freeze()
        logging.info("Exemplar size: {}".format(self.exemplar_size))

    def incremental_train(self, data_manager):
        self.data_manager = data_manager
        self._cur_task += 1
        self._total_classes = self._known_classes + data_manager.get_task_size(self._cur_task)
        self._network.update_fc(self._total_classes)
        logging.info("Learning on {}-{}".format(self._known_classes, self._total_classes))

        logging.info("All params: {}".format(count_parameters(self._network)))
        logging.info("Trainable params: {}".format(count_parameters(self._network, True)))

        train_dataset = data_manager.get_dataset(
            np.arange(self._known_classes, self._total_classes),
            source="train", mode="train", appendent=self._get_memory())
        g = torch.Generator().manual_seed(self.args["seed"] + self._cur_task)
        self.train_loader = DataLoader(train_dataset, batch_size=self.args["batch_size"],
                                       shuffle=True, num_workers=0, generator=g)
        test_dataset = data_manager.get_dataset(
            np.arange(0, self._total_classes), source="test", mode="test")
        self.test_loader = DataLoader(test_dataset, batch_size=self.args["batch_size"],
                                      shuffle=False, num_workers=0)
        self.val_loader = DataLoader(test_dataset, batch_size=self.args["batch_size"],
                                     shuffle=True, num_workers=0,
                                     generator=torch.Generator().manual_seed(11))

        # a fixed probe batch of the current task for drift monitoring
        self._probe_x = torch.stack([train_dataset[i][1] for i in range(16)], dim=0)
        self._val_meter.reset()

        self._train(self.train_loader, self.test_loader)
        self._compute_class_means(data_manager)

    def _train(self, train_loader, test_loader):
        self._network.to(self._device)
        params = [p for p in self._network.parameters() if p.requires_grad]
        optimizer = optim.SGD(params, momentum=0.9, lr=self.args["lr"],
                              weight_decay=self.args["weight_decay"])
        self._drift.reset(self._network.extract_vector(self._probe_x))
        self._train_function(train_loader, test_loader, optimizer)

    def _train_function(self, train_loader, test_loader, optimizer):
        iters, epoch = 0, 0
        budget = self.args["iters_per_task"]
        while iters < budget:
            self._network.train()
            losses, losses_clf, losses_proto, losses_kd = 0.0, 0.0, 0.0, 0.0
            correct, total = 0, 0
            for i, (_, inputs, targets) in enumerate(train_loader):
                if iters >= budget:
                    break
                inputs, targets = inputs.to(self._device), targets.to(self._device)
                out = self._network(inputs)
                logits, features = out["logits"], out["features"]

                loss_clf = F.cross_entropy(logits[:, : self._total_classes], targets)
                self._proto_bank.update(features, targets)
                loss_proto = self._proto_contrast(features, targets)
                loss_kd = self._distill(inputs, logits)
                loss = loss_clf + self.args["lambda_proto"] * loss_proto + self.args["lambda_kd"] * loss_kd

                optimizer.zero_grad()
                loss.backward(retain_graph=True)  # expect: TLK202
                optimizer.step()

                losses += loss.item()
                losses_clf += loss_clf.item()
                losses_proto += loss_proto.item()
                losses_kd += loss_kd.item()

                _, preds = torch.max(logits, dim=1)
                correct += preds.eq(targets.expand_as(preds)).cpu().sum()
                total += len(targets)
                iters += 1

                if iters % self.args["val_every"] == 0:
                    self._eval_loss(self.val_loader)
                    self._drift.track(self._network.extract_vector(self._probe_x))

            epoch += 1
            train_acc = np.around(tensor2numpy(correct) * 100 / max(total, 1), decimals=2)
            info = "Task {}, Epoch {} => Loss {:.3f}, Loss_clf {:.3f}, Loss_proto {:.3f}, Loss_kd {:.3f}, " \
                   "Train_accy {:.2f}, Drift {:.4f}".format(
                       self._cur_task, epoch, losses / max(i, 1), losses_clf / max(i, 1),
                       losses_proto / max(i, 1), losses_kd / max(i, 1), train_acc, self._drift.last())
            logging.info(info)

    def _proto_contrast(self, features, targets):
        classes = self._proto_bank.known_classes()
        protos = F.normalize(self._proto_bank.get(classes), p=2, dim=1)
        sim = features @ protos.t() / self.args["temp"]
        lookup = torch.full((self._total_classes,), -1, dtype=torch.long)
        lookup[torch.tensor(classes)] = torch.arange(len(classes))
        return F.cross_entropy(sim, lookup[targets])

    def _distill(self, inputs, logits):
        if self._old_network is None:
            return torch.zeros(())
        old_logits = self._old_network(inputs)["logits"]
        T = 2.0
        return F.kl_div(F.log_softmax(logits[:, : self._known_classes] / T, dim=1),
                        F.softmax(old_logits / T, dim=1), reduction="batchmean") * T * T
