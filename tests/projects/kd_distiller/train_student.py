# Layout modelled on HobbitLong/RepDistiller (train_student.py): the entry script builds a teacher
# and a student, wraps them with the distillation criteria in lists, and runs helper/loops.py's
# train_distill and validate per epoch. Reduced: small MLPs on flat inputs, the KD criterion only.
import torch
import torch.nn as nn
import torch.optim as optim

from distiller_zoo import DistillKL
from helper.loops import train_distill as train, validate
from helper.util import adjust_learning_rate
from models import model_dict


def main(train_loader, val_loader, epochs=2, learning_rate=0.05, lr_decay_epochs=(1,), alpha=0.9, temperature=4.0):
    model_t = model_dict["wide"](num_classes=10)
    model_s = model_dict["thin"](num_classes=10)
    module_list = nn.ModuleList([model_s, model_t])
    criterion_list = nn.ModuleList([nn.CrossEntropyLoss(), DistillKL(temperature)])
    optimizer = optim.SGD(model_s.parameters(), lr=learning_rate, momentum=0.9, weight_decay=5e-4)
    best_acc = 0.0
    for epoch in range(1, epochs + 1):
        adjust_learning_rate(epoch, learning_rate, lr_decay_epochs, optimizer)
        train_acc, train_loss, calibration = train(epoch, train_loader, module_list, criterion_list, optimizer, alpha)
        test_acc, test_loss = validate(val_loader, model_s, criterion_list[0])
        if test_acc > best_acc:
            best_acc = test_acc
        print(f"epoch {epoch}: train acc {float(train_acc):.2f} loss {float(train_loss):.4f} ece {calibration:.4f} test acc {float(test_acc):.2f}")
    return best_acc, criterion_list
