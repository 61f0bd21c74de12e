# Source: https://github.com/UT-Austin-RPL/amago/pull/27
# Shape: actor and critics share a sequence encoder; the actor loss is backwarded with retain_graph=True, the critics' gradients from it are zeroed, then the critic loss is backwarded through the same encoder graph and one step is taken
# Verdict: clean
import torch


def update(agent, batch, optimizer, gamma=0.99):
    seq_emb = agent.traj_encoder(batch.obs, batch.prev_actions)
    actions = agent.actor(seq_emb)
    q_pi = agent.critics(seq_emb.detach(), actions)
    actor_loss = -q_pi.mean()

    with torch.no_grad():
        target = batch.rewards + gamma * (1 - batch.dones) * agent.target_critics(seq_emb, agent.actor(seq_emb)).min(0).values
    q_data = agent.critics(seq_emb, batch.actions)
    critic_loss = (q_data - target.unsqueeze(0)).pow(2).mean()

    optimizer.zero_grad()
    actor_loss.backward(retain_graph=True)
    for p in agent.critics.parameters():
        p.grad = None
    critic_loss.backward()
    optimizer.step()
    return actor_loss.item(), critic_loss.item()


for step in range(num_updates):
    update(agent, replay.sample(), optimizer)
