# Source: https://github.com/kc-ml2/SimpleDreamer/issues/7
# Shape: a Dreamer agent collects episodes by stepping the environment, feeding the RSSM's posterior and deterministic state from each env step into the next without torch.no_grad(); only the action is detached, so the latent state chains every step's encoder/RSSM graph until the episode ends.
# Verdict: leak
import torch


class Dreamer:
    def __init__(self, encoder, rssm, actor, buffer, action_size):
        self.encoder = encoder
        self.rssm = rssm
        self.actor = actor
        self.buffer = buffer
        self.action_size = action_size

    def environment_interaction(self, env, num_interaction_episodes, train=True):
        scores = []
        for epi in range(num_interaction_episodes):
            posterior, deterministic = self.rssm.recurrent_model_input_init(1)
            action = torch.zeros(1, self.action_size)
            observation = env.reset()
            embedded_observation = self.encoder(observation.float().unsqueeze(0))
            score = 0.0
            done = False
            while not done:
                deterministic = self.rssm.recurrent_model(posterior, action, deterministic)  # TLK103
                embedded_observation = embedded_observation.reshape(1, -1)
                _, posterior = self.rssm.representation_model(embedded_observation, deterministic)  # TLK103
                action = self.actor(posterior, deterministic).detach()
                buffer_action = action.cpu()
                next_observation, reward, done = env.step(buffer_action)
                if train:
                    self.buffer.add(observation, buffer_action, reward, next_observation, done)
                score += float(reward)
                embedded_observation = self.encoder(next_observation.float().unsqueeze(0))
                observation = next_observation
            scores.append(score)
        return sum(scores) / max(len(scores), 1)
