# Source: https://github.com/learnables/learn2learn/issues/394
# Shape: a seq2seq meta-learner's inner loop sums the support-set losses of all support batches into one tensor and hands it to learner.adapt(), which differentiates it, once per adaptation step; the sum starts from zero at every step and only its .item() is kept, so nothing outlives the step it was built for.
# Verdict: clean
import learn2learn as l2l
import torch


def inner_loop(learner, support_dl, adaptation_steps):
    step_losses = []
    for step in range(adaptation_steps):
        support_loss = 0.0
        for inputs in support_dl:
            outputs = learner(**inputs)
            support_loss += outputs.loss * support_dl.batch_size / len(support_dl.dataset)
        learner.adapt(support_loss)
        step_losses.append(support_loss.item())
    return learner, sum(step_losses) / len(step_losses)


def meta_train(model, tasks, meta_lr=3e-5, fast_lr=1e-4, adaptation_steps=3, iterations=1000):
    maml = l2l.algorithms.MAML(model, lr=fast_lr, first_order=True)
    opt = torch.optim.AdamW(maml.parameters(), lr=meta_lr)
    for iteration in range(iterations):
        opt.zero_grad()
        support_dl, query_dl = tasks.sample()
        learner = maml.clone()
        learner, support_avg = inner_loop(learner, support_dl, adaptation_steps)
        query_loss = sum(learner(**batch).loss for batch in query_dl) / len(query_dl)
        query_loss.backward()
        opt.step()
        print(iteration, support_avg, query_loss.item())
