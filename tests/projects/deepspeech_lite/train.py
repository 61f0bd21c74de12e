# Modelled on: https://github.com/SeanNaren/deepspeech.pytorch
import argparse
import time

import torch
import torch.nn.functional as F

from data_loader import AudioDataLoader, SpectrogramDataset, LABELS
from decoder import GreedyDecoder
from model import DeepSpeech
from sampler import ConfidenceCurriculumSampler
from utils import AverageMeter, check_loss, accumulate_losses, epoch_summary

DEFAULTS = dict(batch_size=8, lr=3e-3, momentum=0.9, max_norm=400.0, amp=True, log_every=10, eval_every=15, seed=123456)


def evaluate(model, loader, decoder, max_batches=2):
    model.eval()
    total_cer, total_chars = 0, 0
    with torch.no_grad():
        for i, (inputs, targets, input_percentages, target_sizes, _) in enumerate(loader):
            if i >= max_batches:
                break
            input_sizes = input_percentages.mul_(int(inputs.size(3))).int()
            out, output_sizes = model(inputs, input_sizes)
            decoded = decoder.decode(out.transpose(0, 1), output_sizes)
            offset = 0
            for j, size in enumerate(target_sizes.tolist()):
                ref = ''.join(LABELS[c] for c in targets[offset:offset + size].tolist())
                offset += size
                total_cer += decoder.cer(decoded[j], ref)
                total_chars += len(ref)
    model.train()
    return 100.0 * total_cer / max(total_chars, 1)


def train(args, n_steps):
    torch.manual_seed(args['seed'])
    train_dataset = SpectrogramDataset(size=640, seed=0)
    test_dataset = SpectrogramDataset(size=32, seed=1)
    train_sampler = ConfidenceCurriculumSampler(train_dataset, batch_size=args['batch_size'])
    train_loader = AudioDataLoader(train_dataset, batch_sampler=train_sampler, num_workers=0)
    test_loader = AudioDataLoader(test_dataset, batch_size=args['batch_size'], num_workers=0)

    model = DeepSpeech(LABELS)
    decoder = GreedyDecoder(LABELS)
    optimizer = torch.optim.SGD(model.parameters(), lr=args['lr'], momentum=args['momentum'], nesterov=True)
    scaler = torch.amp.GradScaler("cpu", enabled=args['amp'])
    criterion = torch.nn.CTCLoss(blank=0, reduction='sum', zero_infinity=True)

    batch_time, losses = AverageMeter(), AverageMeter()
    epoch_totals, loss_curve, cers = {}, [], []
    step = 0
    while step < n_steps:
        end = time.time()
        for i, (inputs, targets, input_percentages, target_sizes, indices) in enumerate(train_loader):
            input_sizes = input_percentages.mul_(int(inputs.size(3))).int()
            with torch.autocast(device_type="cpu", dtype=torch.bfloat16, enabled=args['amp']):
                out, output_sizes = model(inputs, input_sizes)
            loss = criterion(out.float(), targets, output_sizes, target_sizes)
            loss = loss / inputs.size(0)  # average the loss by minibatch

            loss_value = loss.item()
            valid_loss, error = check_loss(loss, loss_value)
            if not valid_loss:
                print(error)
                continue
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), args['max_norm'])
            scaler.step(optimizer)
            scaler.update()

            losses.update(loss_value, inputs.size(0))  # CLEAN: meter is fed the float from loss.item()
            accumulate_losses(epoch_totals, {'ctc': loss})
            train_sampler.update(indices, out, output_sizes)
            loss_curve.append(loss_value)
            batch_time.update(time.time() - end)
            end = time.time()
            step += 1

            if step % args['log_every'] == 0:
                print('Step: [{0}/{1}]\tTime {batch_time.val:.3f} ({batch_time.avg:.3f})\t'
                      'Loss {loss.val:.4f} ({loss.avg:.4f})'.format(step, n_steps, batch_time=batch_time, loss=losses))
            if step % args['eval_every'] == 0:
                cers.append(evaluate(model, test_loader, decoder))
                print('Step {} CER {:.1f}'.format(step, cers[-1]))
            if step >= n_steps:
                break
        print('Epoch summary', epoch_summary(epoch_totals))

    return {'model': model, 'sampler': train_sampler, 'epoch_totals': epoch_totals, 'decoder': decoder,
            'loss_curve': loss_curve, 'cer': cers}


def main(n_steps=30, **overrides):
    args = dict(DEFAULTS)
    args.update(overrides)
    return train(args, n_steps)


if __name__ == '__main__':
    parser = argparse.ArgumentParser(description='DeepSpeech-lite training')
    parser.add_argument('--steps', type=int, default=30)
    main(parser.parse_args().steps)
