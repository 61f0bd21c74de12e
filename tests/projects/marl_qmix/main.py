# Modelled on oxwhirl/pymarl (src/run.py, runners/episode_runner.py, controllers/basic_controller.py,
# learners/q_learner.py, components/episode_buffer.py, utils/logging.py): a runner collects
# episodes through a shared-parameter multi-agent controller, a replay buffer of whole episodes
# feeds a QMIX learner, and a logger keeps statistics. Written anew and much smaller.
import torch as th

from buffer import ReplayBuffer
from controller import BasicMAC
from learner import QLearner
from runner import CoopEnv, EpisodeRunner
from utils import Logger


def run_sequential(t_max=60, batch_size=4, buffer_size=32, log_interval=20, test_nepisode=2):
    env = CoopEnv()
    scheme = {
        "state": ((env.state_dim,), th.float32),
        "obs": ((env.n_agents, env.obs_dim), th.float32),
        "avail_actions": ((env.n_agents, env.n_actions), th.long),
        "actions": ((env.n_agents,), th.long),
        "reward": ((1,), th.float32),
        "terminated": ((1,), th.uint8),
        "filled": ((1,), th.long),
    }
    logger = Logger()
    mac = BasicMAC(env.obs_dim, env.n_agents, env.n_actions)
    runner = EpisodeRunner(env, mac, logger, scheme)
    buffer = ReplayBuffer(scheme, buffer_size, env.episode_limit + 1)
    learner = QLearner(mac, env.state_dim, logger)

    episode = 0
    last_log_t = 0
    while runner.t_env <= t_max:
        episode_batch = runner.run(test_mode=False)
        buffer.insert_episode_batch(episode_batch)
        if buffer.can_sample(batch_size):
            learner.train(buffer.sample(batch_size), runner.t_env, episode)
        episode += 1
        if runner.t_env - last_log_t >= log_interval:
            for _ in range(test_nepisode):
                runner.run(test_mode=True)
            runner.log_stats()
            logger.print_recent_stats()
            last_log_t = runner.t_env
    return runner, learner, logger, buffer
