# Source: https://github.com/yihaosun1124/OfflineRL-Kit/issues/15
# Shape: offline RL update with two critics that read one shared observation encoding; critic 1's backward retains the graph because critic 2's loss goes back through the same encoder output before the single optimizer step
# Verdict: clean
import torch
import torch.nn.functional as F


def learn(encoder, critic1, critic2, critic_optim, batch, target_q):
    obs_feat = encoder(batch["observations"])
    q1 = critic1(obs_feat, batch["actions"])
    q2 = critic2(obs_feat, batch["actions"])
    critic1_loss = F.mse_loss(q1, target_q)
    critic2_loss = F.mse_loss(q2, target_q)

    critic_optim.zero_grad()
    critic1_loss.backward(retain_graph=True)
    critic2_loss.backward()
    critic_optim.step()
    return {"loss/critic1": critic1_loss.item(), "loss/critic2": critic2_loss.item()}


for step in range(max_steps):
    batch = buffer.sample(256)
    with torch.no_grad():
        target_q = compute_target(batch)
    learn(encoder, critic1, critic2, critic_optim, batch, target_q)
