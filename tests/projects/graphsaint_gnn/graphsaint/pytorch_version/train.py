# Modelled on: https://github.com/GraphSAINT/GraphSAINT/blob/master/graphsaint/pytorch_version/train.py
from graphsaint.globals import *
from graphsaint.pytorch_version.models import GraphSAINT
from graphsaint.pytorch_version.minibatch import Minibatch
from graphsaint.utils import *
from graphsaint.metric import *
from graphsaint.pytorch_version.utils import *


import torch
import time


def evaluate_full_batch(model, minibatch, mode='val'):
    """
    Full batch evaluation: for validation and test sets only.
    When calculating the F1 score, we will mask the relevant root nodes.

    if mode == 'both', then we will return acc stat for both val and test sets
    """
    loss, preds, labels = model.eval_step(*minibatch.one_batch(mode=mode))
    if mode == 'val':
        node_target = [minibatch.node_val]
    elif mode == 'test':
        node_target = [minibatch.node_test]
    else:
        assert mode == 'valtest'
        node_target = [minibatch.node_val, minibatch.node_test]
    f1mic, f1mac = [], []
    for n in node_target:
        f1_scores = calc_f1(to_numpy(labels[n]), to_numpy(preds[n]), model.sigmoid_loss)
        f1mic.append(f1_scores[0])
        f1mac.append(f1_scores[1])
    f1mic = f1mic[0] if len(f1mic) == 1 else f1mic
    f1mac = f1mac[0] if len(f1mac) == 1 else f1mac
    # loss is not very accurate in this case, since loss is also contributed by training nodes
    return loss, f1mic, f1mac


def prepare(train_data, train_params, arch_gcn):
    adj_full, adj_train, feat_full, class_arr, role = train_data
    adj_full_norm = adj_norm(adj_full)
    num_classes = class_arr.shape[1]

    minibatch = Minibatch(adj_full_norm, adj_train, role, train_params)
    model = GraphSAINT(num_classes, arch_gcn, train_params, feat_full, class_arr)
    minibatch_eval = Minibatch(adj_full_norm, adj_train, role, train_params, cpu_eval=True)
    model_eval = GraphSAINT(num_classes, arch_gcn, train_params, feat_full, class_arr, cpu_eval=True)
    return model, minibatch, minibatch_eval, model_eval


def train(train_phases, model, minibatch, minibatch_eval, model_eval, eval_val_every, max_batches=None):
    if not args_global.cpu_eval:
        minibatch_eval = minibatch
    quiet = args_global.quiet
    epoch_ph_start = 0
    f1mic_best, ep_best = 0, -1
    time_train = 0
    saved_state = None
    log = {'loss_tr': [], 'f1mic_tr': [], 'f1mac_tr': [], 'loss_val': [], 'f1mic_val': []}
    n_batches = 0
    for ip, phase in enumerate(train_phases):
        printf('START PHASE {:4d}'.format(ip), style='underline', quiet=quiet)
        minibatch.set_sampler(phase)
        num_batches = minibatch.num_training_batches()
        for e in range(epoch_ph_start, int(phase['end'])):
            printf('Epoch {:4d}'.format(e), style='bold', quiet=quiet)
            minibatch.shuffle()
            l_loss_tr, l_f1mic_tr, l_f1mac_tr = [], [], []
            time_train_ep = 0
            while not minibatch.end():
                if max_batches is not None and n_batches >= max_batches:
                    break
                t1 = time.time()
                loss_train, preds_train, labels_train = model.train_step(*minibatch.one_batch(mode='train'))
                time_train_ep += time.time() - t1
                n_batches += 1
                if not minibatch.batch_num % args_global.eval_train_every:
                    f1_mic, f1_mac = calc_f1(to_numpy(labels_train), to_numpy(preds_train), model.sigmoid_loss)
                    l_loss_tr.append(loss_train)  # expect: TLK102
                    l_f1mic_tr.append(f1_mic)
                    l_f1mac_tr.append(f1_mac)
            log['loss_tr'].extend(l_loss_tr)
            log['f1mic_tr'].extend(l_f1mic_tr)
            log['f1mac_tr'].extend(l_f1mac_tr)
            if (e + 1) % eval_val_every == 0:
                if args_global.cpu_eval:
                    model_eval.load_state_dict(state_dict_cpu(model))
                else:
                    model_eval = model
                loss_val, f1mic_val, f1mac_val = evaluate_full_batch(model_eval, minibatch_eval, mode='val')
                log['loss_val'].append(loss_val.item())
                log['f1mic_val'].append(f1mic_val)
                if l_loss_tr:
                    printf(' TRAIN (Ep avg): loss = {:.4f}\tmic = {:.4f}\tmac = {:.4f}\ttrain time = {:.4f} sec'.format(
                        float(f_mean(l_loss_tr)), f_mean(l_f1mic_tr), f_mean(l_f1mac_tr), time_train_ep), quiet=quiet)
                printf(' VALIDATION:     loss = {:.4f}\tmic = {:.4f}\tmac = {:.4f}'.format(
                    loss_val, f1mic_val, f1mac_val), style='yellow', quiet=quiet)
                if f1mic_val > f1mic_best:
                    f1mic_best, ep_best = f1mic_val, e
                    printf('  Saving model ...', style='yellow', quiet=quiet)
                    saved_state = state_dict_cpu(model)
            time_train += time_train_ep
        epoch_ph_start = int(phase['end'])
    printf("Optimization Finished!", style="yellow", quiet=quiet)
    if ep_best >= 0:
        if args_global.cpu_eval:
            model_eval.load_state_dict(saved_state)
        else:
            model_eval = model
        printf('  Restoring model ...', style='yellow', quiet=quiet)
    loss, f1mic_both, f1mac_both = evaluate_full_batch(model_eval, minibatch_eval, mode='valtest')
    f1mic_val, f1mic_test = f1mic_both
    f1mac_val, f1mac_test = f1mac_both
    printf("Full validation (Epoch {:4d}): \n  F1_Micro = {:.4f}\tF1_Macro = {:.4f}".format(
        ep_best, f1mic_val, f1mac_val), style='red', quiet=quiet)
    printf("Full test stats: \n  F1_Micro = {:.4f}\tF1_Macro = {:.4f}".format(
        f1mic_test, f1mac_test), style='red', quiet=quiet)
    printf("Total training time: {:6.2f} sec".format(time_train), style='red', quiet=quiet)
    log.update(f1mic_test=f1mic_test, f1mac_test=f1mac_test, ep_best=ep_best, n_batches=n_batches)
    return log


def main(steps):
    """Train on `steps` sampled subgraphs and return what the run
    keeps: the model, the minibatch iterator and the training log."""
    torch.manual_seed(0)
    np.random.seed(0)
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    train_params, train_phases, train_data, arch_gcn = parse_n_prepare(args_global, root=root)
    if 'eval_val_every' not in train_params:
        train_params['eval_val_every'] = EVAL_VAL_EVERY_EP
    model, minibatch, minibatch_eval, model_eval = prepare(train_data, train_params, arch_gcn)
    ph = train_phases[0]
    batches_per_epoch = -(-len(train_data[4]['tr']) // (ph['num_root'] * ph['depth']))
    train_phases = [dict(ph, end=-(-steps // batches_per_epoch))]
    log = train(train_phases, model, minibatch, minibatch_eval, model_eval,
                train_params['eval_val_every'], max_batches=steps)
    return {'model': model, 'minibatch': minibatch, 'log': log}


if __name__ == '__main__':
    out = main(10)
    print({k: out['log'][k] for k in ('f1mic_test', 'f1mac_test', 'ep_best', 'n_batches')})
