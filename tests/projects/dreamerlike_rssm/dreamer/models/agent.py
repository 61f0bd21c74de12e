import torch
import torch.nn as nn

from dreamer.models.action import ActionDecoder
from dreamer.models.dense import DenseModel
from dreamer.models.observation import ContextEncoder, ObservationDecoder, ObservationEncoder
from dreamer.models.rnns import RSSMRepresentation, RSSMRollout, RSSMState, RSSMTransition, get_feat


class AgentModel(nn.Module):
    def __init__(self, action_size=2, obs_size=16, stochastic_size=8, deterministic_size=32, hidden_size=32,
                 embed_size=32, context_size=8, action_hidden_size=32, action_layers=2, reward_layers=2,
                 reward_hidden=32, value_layers=2, value_hidden=32, dtype=torch.float):
        super().__init__()
        self.observation_encoder = ObservationEncoder(obs_size=obs_size, embed_size=embed_size)
        feature_size = stochastic_size + deterministic_size
        self.context_encoder = ContextEncoder(obs_size=obs_size, context_size=context_size)
        self.observation_decoder = ObservationDecoder(embed_size=feature_size, obs_size=obs_size,
                                                      context_size=context_size)
        self.action_size = action_size
        self.transition = RSSMTransition(action_size, stochastic_size, deterministic_size, hidden_size)
        self.representation = RSSMRepresentation(self.transition, embed_size, action_size, stochastic_size,
                                                 deterministic_size, hidden_size)
        self.rollout = RSSMRollout(self.representation, self.transition)
        self.action_decoder = ActionDecoder(action_size, feature_size, action_hidden_size, action_layers)
        self.reward_model = DenseModel(feature_size, (1,), reward_layers, reward_hidden)
        self.value_model = DenseModel(feature_size, (1,), value_layers, value_hidden)
        self.dtype = dtype

    def forward(self, observation: torch.Tensor, prev_action: torch.Tensor = None, prev_state: RSSMState = None):
        state = self.get_state_representation(observation, prev_action, prev_state)
        action, action_dist = self.policy(state)
        return action, action_dist, state

    def policy(self, state: RSSMState):
        feat = get_feat(state)
        action_dist = self.action_decoder(feat)
        if self.training:
            action = torch.tanh(action_dist.rsample())
        else:
            action = torch.tanh(action_dist.mean)
        return action, action_dist

    def get_state_representation(self, observation, prev_action=None, prev_state=None):
        obs_embed = self.observation_encoder(observation)
        if prev_action is None:
            prev_action = torch.zeros(observation.size(0), self.action_size, device=observation.device,
                                      dtype=observation.dtype)
        if prev_state is None:
            prev_state = self.representation.initial_state(prev_action.size(0), device=prev_action.device,
                                                           dtype=prev_action.dtype)
        _, state = self.representation(obs_embed, prev_action, prev_state)
        return state
