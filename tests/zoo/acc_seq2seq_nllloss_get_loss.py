# Source: https://github.com/IBM/pytorch-seq2seq/issues/183
# Shape: after porting pytorch-seq2seq to PyTorch >= 0.4 (acc_loss.data[0] -> acc_loss), NLLLoss.get_loss() returns the attached accumulated loss, and SupervisedTrainer sums it into print_loss_total / epoch_loss_total, so the decoder graph of every batch in the epoch stays alive.
# Verdict: leak
import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class Loss(object):
    def __init__(self, name, criterion):
        self.name = name
        self.criterion = criterion
        self.acc_loss = 0
        self.norm_term = 0

    def reset(self):
        self.acc_loss = 0
        self.norm_term = 0

    def get_loss(self):
        raise NotImplementedError

    def eval_batch(self, outputs, target):
        raise NotImplementedError

    def backward(self):
        if type(self.acc_loss) is int:
            raise ValueError("No loss to back propagate.")
        self.acc_loss.backward()


class NLLLoss(Loss):
    _NAME = "Avg NLLLoss"

    def __init__(self, weight=None, mask=None, size_average=True):
        self.mask = mask
        self.size_average = size_average
        if mask is not None:
            if weight is None:
                raise ValueError("Must provide weight with a mask.")
            weight[mask] = 0
        super(NLLLoss, self).__init__(self._NAME, nn.NLLLoss(weight=weight, reduction="mean"))

    def get_loss(self):
        if isinstance(self.acc_loss, int):
            return 0
        # total loss for all batches
        loss = self.acc_loss
        if self.size_average:
            # average loss per batch
            loss = loss / self.norm_term
        return loss

    def eval_batch(self, outputs, target):
        self.acc_loss += self.criterion(outputs, target)
        self.norm_term += 1


class EncoderRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.rnn = nn.GRU(hidden_size, hidden_size, batch_first=True)

    def forward(self, input_var):
        return self.rnn(self.embedding(input_var))


class DecoderRNN(nn.Module):
    def __init__(self, vocab_size, hidden_size, sos_id):
        super().__init__()
        self.sos_id = sos_id
        self.embedding = nn.Embedding(vocab_size, hidden_size)
        self.rnn = nn.GRU(hidden_size, hidden_size, batch_first=True)
        self.out = nn.Linear(hidden_size, vocab_size)

    def forward_step(self, input_var, hidden):
        output, hidden = self.rnn(self.embedding(input_var), hidden)
        return F.log_softmax(self.out(output.squeeze(1)), dim=-1), hidden

    def forward(self, inputs, encoder_hidden, teacher_forcing_ratio=0.5):
        batch_size, max_length = inputs.size(0), inputs.size(1) - 1
        decoder_hidden = encoder_hidden
        decoder_input = inputs[:, 0].unsqueeze(1)
        decoder_outputs = []
        for di in range(max_length):
            step_output, decoder_hidden = self.forward_step(decoder_input, decoder_hidden)
            decoder_outputs.append(step_output)
            if random.random() < teacher_forcing_ratio:
                decoder_input = inputs[:, di + 1].unsqueeze(1)
            else:
                decoder_input = step_output.argmax(-1).unsqueeze(1)
        return decoder_outputs, decoder_hidden


class Seq2seq(nn.Module):
    def __init__(self, encoder, decoder):
        super().__init__()
        self.encoder = encoder
        self.decoder = decoder

    def forward(self, input_variable, target_variable=None, teacher_forcing_ratio=0):
        encoder_outputs, encoder_hidden = self.encoder(input_variable)
        return self.decoder(target_variable, encoder_hidden, teacher_forcing_ratio)


class SupervisedTrainer(object):
    def __init__(self, loss=NLLLoss(), batch_size=16, print_every=100):
        self.loss = loss
        self.batch_size = batch_size
        self.print_every = print_every
        self.optimizer = None
        self.log = []

    def _train_batch(self, input_variable, target_variable, model, teacher_forcing_ratio):
        loss = self.loss
        # Forward propagation
        decoder_outputs, decoder_hidden = model(input_variable, target_variable,
                                                teacher_forcing_ratio=teacher_forcing_ratio)
        # Get loss
        loss.reset()
        for step, step_output in enumerate(decoder_outputs):
            batch_size = target_variable.size(0)
            loss.eval_batch(step_output.contiguous().view(batch_size, -1), target_variable[:, step + 1])
        # Backward propagation
        model.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 5.0)
        self.optimizer.step()

        return loss.get_loss()

    def _train_epoches(self, data, model, n_epochs, teacher_forcing_ratio=0.5):
        print_loss_total = 0  # Reset every print_every
        epoch_loss_total = 0  # Reset every epoch
        step = 0
        for epoch in range(1, n_epochs + 1):
            model.train(True)
            for batch in data:
                step += 1
                input_variables, target_variables = batch
                loss = self._train_batch(input_variables, target_variables, model, teacher_forcing_ratio)

                # Record average loss
                print_loss_total += loss  # TLK101
                epoch_loss_total += loss  # TLK101

                if step % self.print_every == 0:
                    print_loss_avg = print_loss_total / self.print_every
                    print_loss_total = 0
                    self.log.append("Progress: %d, Train %s: %.4f" % (step, self.loss.name, print_loss_avg))

            epoch_loss_avg = epoch_loss_total / max(1, step)
            self.log.append("Finished epoch %d: Train %s: %.4f" % (epoch, self.loss.name, epoch_loss_avg))
            epoch_loss_total = 0
        return print_loss_total

    def train(self, model, data, num_epochs=1, optimizer=None, teacher_forcing_ratio=0.5):
        self.optimizer = optimizer or torch.optim.Adam(model.parameters(), lr=1e-3)
        self.last_print_total = self._train_epoches(data, model, num_epochs, teacher_forcing_ratio)
        return model


VOCAB, HIDDEN, SRC_LEN, TGT_LEN, SOS = 40, 32, 10, 12, 1


def make_batches(n):
    torch.manual_seed(0)
    return list(range(n))


def load_batch(seed, batch_size=16):
    g = torch.Generator().manual_seed(seed)
    src = torch.randint(3, VOCAB, (batch_size, SRC_LEN), generator=g)
    tgt = torch.cat([torch.full((batch_size, 1), SOS), src.flip(1), torch.full((batch_size, 1), 2)], 1)
    return src, tgt


def run(batches):
    random.seed(0)
    model = Seq2seq(EncoderRNN(VOCAB, HIDDEN), DecoderRNN(VOCAB, HIDDEN, SOS))
    trainer = SupervisedTrainer(loss=NLLLoss(), batch_size=16, print_every=100)
    trainer.train(model, [load_batch(s) for s in batches], num_epochs=1, teacher_forcing_ratio=0.5)
    return trainer
