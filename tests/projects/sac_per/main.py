# Layout modelled on pranz24/pytorch-soft-actor-critic (main.py): the script builds the SAC agent
# and a replay memory, steps the environment, and after start_steps runs updates_per_step
# updates per environment step, logging what update_parameters returns. Reduced: the environment
# is passed in (anything with reset(), step(action), sample_action() and max_episode_steps), the
# memory is prioritized as in forks that add PER, and the episode's losses are summed for a
# print instead of a SummaryWriter.
import itertools

from replay_memory import PrioritizedReplayMemory
from sac import SAC


def main(env, args):
    agent = SAC(env.observation_dim, env.action_dim, args)
    memory = PrioritizedReplayMemory(args.replay_size, args.seed)
    total_numsteps = 0
    updates = 0
    history = []
    for i_episode in itertools.count(1):
        episode_reward = 0.0
        episode_critic_loss = 0.0
        episode_policy_loss = 0.0
        episode_steps = 0
        done = False
        state = env.reset()
        while not done:
            if args.start_steps > total_numsteps:
                action = env.sample_action()
            else:
                action = agent.select_action(state)

            if len(memory) > args.batch_size:
                for _ in range(args.updates_per_step):
                    critic_1_loss, critic_2_loss, policy_loss, ent_loss, alpha = agent.update_parameters(memory, args.batch_size, updates)
                    episode_critic_loss += critic_1_loss + critic_2_loss  # clean: update_parameters returns numbers for these
                    # Measured under torch 2.13 CPU (batch 8, hidden 16, one episode of 10, 20,
                    # 30 updates): episode_policy_loss keeps 454 -> 894 -> 1,334 autograd nodes
                    # (+44 per update) and, through utils.optimize's retain_graph=True, 21,852 ->
                    # 43,092 -> 64,332 B of saved tensors (+2,124 B per update; 0 B without it);
                    # none when update_parameters returns policy_loss.item().
                    episode_policy_loss += policy_loss  # expect: TLK101
                    updates += 1

            next_state, reward, done = env.step(action)
            episode_steps += 1
            total_numsteps += 1
            episode_reward += reward
            # Ignore the "done" signal if it comes from hitting the time horizon.
            mask = 1.0 if episode_steps == env.max_episode_steps else float(not done)
            memory.push(state, action, reward, next_state, mask)  # clean: select_action returns a detached action
            state = next_state

        history.append((episode_reward, episode_critic_loss))
        print(f"Episode: {i_episode}, total numsteps: {total_numsteps}, reward: {episode_reward:.2f}, policy loss: {float(episode_policy_loss):.3f}")
        if total_numsteps > args.num_steps:
            break
    return agent, memory, history
