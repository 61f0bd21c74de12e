# Source: https://github.com/ShusenTang/Dive-into-DL-PyTorch/issues/146
# Shape: a from-scratch character RNN trained with consecutive (adjacent) sampling initialises its hidden state once per epoch and feeds each minibatch's final state into the next minibatch; the state is never detached, so it links to the previous minibatch's graph, whose saved tensors the previous backward freed, and the second minibatch's backward raises "Trying to backward through the graph a second time".
# Verdict: leak
import math

import torch
import torch.nn.functional as F


def init_rnn_state(batch_size, num_hiddens):
    return (torch.zeros(batch_size, num_hiddens),)


def rnn(inputs, state, params):
    W_xh, W_hh, b_h, W_hq, b_q = params
    (H,) = state
    outputs = []
    for X in inputs:
        H = torch.tanh(X @ W_xh + H @ W_hh + b_h)
        outputs.append(H @ W_hq + b_q)
    return outputs, (H,)


def grad_clipping(params, theta):
    norm = torch.sqrt(sum((p.grad.data ** 2).sum() for p in params))
    if norm > theta:
        for p in params:
            p.grad.data *= theta / norm


def data_iter_consecutive(corpus_indices, batch_size, num_steps):
    corpus = torch.tensor(corpus_indices)
    batch_len = len(corpus) // batch_size
    indices = corpus[: batch_size * batch_len].view(batch_size, batch_len)
    for i in range((batch_len - 1) // num_steps):
        j = i * num_steps
        yield indices[:, j: j + num_steps], indices[:, j + 1: j + num_steps + 1]


def train_rnn_consecutive(params, corpus_indices, vocab_size, num_hiddens, num_epochs=10, num_steps=35, batch_size=32, lr=1e2, clipping_theta=1e-2):
    perplexities = []
    for epoch in range(num_epochs):
        state = init_rnn_state(batch_size, num_hiddens)
        l_sum, n = 0.0, 0
        for X, Y in data_iter_consecutive(corpus_indices, batch_size, num_steps):
            inputs = [F.one_hot(x, vocab_size).float() for x in X.t()]
            outputs, state = rnn(inputs, state, params)  # TLK103
            outputs = torch.cat(outputs, dim=0)
            y = Y.t().reshape(-1)
            l = F.cross_entropy(outputs, y)
            for param in params:
                if param.grad is not None:
                    param.grad.data.zero_()
            l.backward()
            grad_clipping(params, clipping_theta)
            for param in params:
                param.data -= lr * param.grad
            l_sum += l.item() * y.shape[0]
            n += y.shape[0]
        perplexities.append(math.exp(l_sum / max(n, 1)))
    return perplexities
