# Layout modelled on nikhilbarhate99/PPO-PyTorch (train.py driving the PPO agent of PPO.py),
# with the agent, policy and buffer in a src/ package imported by its package name.
from ppo.agent import PPO


def run(env, max_steps):
    agent = PPO(4, 2)
    state, reward, done = env.reset(), 0.0, False
    for t in range(max_steps):
        action = agent.select_action(state, reward, done)  # expect: TLK102 (buffer.py)
        state, reward, done, _ = env.step(action)
        if done:
            state = env.reset()


def run_without_graph(env, max_steps):
    agent = PPO(4, 2)
    state, reward, done = env.reset(), 0.0, False
    for t in range(max_steps):
        action = agent.select_action_no_grad(state, reward, done)  # clean: acted under no_grad
        state, reward, done, _ = env.step(action)
