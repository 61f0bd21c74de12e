# Source: https://github.com/ChanganVR/RelationalGraphLearning/issues/22
# Shape: ModelPredictiveRL.predict keeps the state predictor's estimate of occluded humans on self.human_states_est and fuses it into the next step's state outside torch.no_grad, so every env step's graph-model/motion-predictor graph is chained onto the next one for the whole run.
# Verdict: leak
import random
import torch
import torch.nn as nn


def mlp(input_dim, mlp_dims, last_relu=False):
    layers = []
    mlp_dims = [input_dim] + mlp_dims
    for i in range(len(mlp_dims) - 1):
        layers.append(nn.Linear(mlp_dims[i], mlp_dims[i + 1]))
        if i != len(mlp_dims) - 2 or last_relu:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class ActionXY(object):
    def __init__(self, vx, vy):
        self.vx = vx
        self.vy = vy


class RGL(nn.Module):
    """Relational graph model: embeds robot + humans and mixes them with a learned similarity matrix."""

    def __init__(self, robot_state_dim=9, human_state_dim=5, X_dim=64):
        super().__init__()
        self.w_r = mlp(robot_state_dim, [64, X_dim], last_relu=True)
        self.w_h = mlp(human_state_dim, [64, X_dim], last_relu=True)
        self.w_a = nn.Parameter(torch.randn(X_dim, X_dim) * 0.05)
        self.w1 = nn.Linear(X_dim, X_dim)

    def forward(self, state):
        robot_state, human_states = state
        X = torch.cat([self.w_r(robot_state), self.w_h(human_states)], dim=1)
        A = torch.softmax(torch.matmul(torch.matmul(X, self.w_a), X.permute(0, 2, 1)), dim=2)
        return torch.relu(self.w1(torch.matmul(A, X))) + X


class ValueEstimator(nn.Module):
    def __init__(self, graph_model, X_dim=64):
        super().__init__()
        self.graph_model = graph_model
        self.value_network = mlp(X_dim, [64, 1])

    def forward(self, state):
        state_embedding = self.graph_model(state)[:, 0, :]
        return self.value_network(state_embedding)


class StatePredictor(nn.Module):
    def __init__(self, graph_model, time_step=0.25, X_dim=64, human_state_dim=5):
        super().__init__()
        self.graph_model = graph_model
        self.human_motion_predictor = mlp(X_dim, [64, human_state_dim])
        self.time_step = time_step

    def forward(self, state, action):
        state_embedding = self.graph_model(state)
        next_robot_state = self.compute_next_state(state[0], action)
        next_human_states = self.human_motion_predictor(state_embedding)[:, 1:, :]
        return [next_robot_state, next_human_states]

    def compute_next_state(self, robot_state, action):
        next_state = robot_state.clone().squeeze()
        next_state[0] = next_state[0] + action.vx * self.time_step
        next_state[1] = next_state[1] + action.vy * self.time_step
        next_state[2] = action.vx
        next_state[3] = action.vy
        return next_state.unsqueeze(0).unsqueeze(0)


class ModelPredictiveRL(object):
    def __init__(self):
        graph_model = RGL()
        self.value_estimator = ValueEstimator(graph_model)
        self.state_predictor = StatePredictor(graph_model)
        self.gamma = 0.9
        self.time_step = 0.25
        self.v_pref = 1.0
        self.action_space = [ActionXY(0, 0)] + [ActionXY(torch.cos(torch.tensor(a)).item(), torch.sin(torch.tensor(a)).item())
                                                for a in [i * 0.785 for i in range(8)]]
        self.human_states_est = None
        self.last_state = None

    def get_normalized_gamma(self):
        return pow(self.gamma, self.time_step * self.v_pref)

    def estimate_reward(self, state, action):
        robot = state[0].squeeze()
        dist = (robot[0] + action.vx * self.time_step - robot[5]) ** 2 + (robot[1] + action.vy * self.time_step - robot[6]) ** 2
        return -0.01 * float(dist)

    def transform(self, ob):
        robot_state, human_states, visible = ob
        return [robot_state.unsqueeze(0), human_states.unsqueeze(0)]

    def predict(self, ob):
        robot_state, human_states, visible = ob
        state_tensor = self.transform(ob)
        if self.human_states_est is not None:
            state_tensor[1] = torch.where(visible.view(1, -1, 1), state_tensor[1], self.human_states_est)
        max_value, max_action, max_next_state = float('-inf'), None, None
        for action in self.action_space:
            next_state = self.state_predictor(state_tensor, action)
            next_return = self.value_estimator(next_state)
            value = self.estimate_reward(state_tensor, action) + self.get_normalized_gamma() * next_return.item()
            if value > max_value:
                max_value, max_action, max_next_state = value, action, next_state
        self.human_states_est = max_next_state[1]  # TLK103
        self.last_state = self.transform(ob)
        return max_action


class ReplayMemory(object):
    def __init__(self, capacity=8):
        self.capacity = capacity
        self.memory = []

    def push(self, item):
        if len(self.memory) >= self.capacity:
            self.memory.pop(0)
        self.memory.append(item)

    def sample(self, batch_size, rng):
        return [self.memory[rng.randrange(len(self.memory))] for _ in range(batch_size)]


class MPRLTrainer(object):
    def __init__(self, policy, memory, batch_size=8):
        self.policy = policy
        self.memory = memory
        self.batch_size = batch_size
        self.criterion = nn.MSELoss()
        self.v_optimizer = torch.optim.Adam(policy.value_estimator.parameters(), lr=1e-3)
        self.s_optimizer = torch.optim.Adam(policy.state_predictor.parameters(), lr=1e-3)
        self.rng = random.Random(0)

    def optimize_batch(self):
        samples = self.memory.sample(self.batch_size, self.rng)
        robot_states = torch.cat([s[0][0] for s in samples])
        human_states = torch.cat([s[0][1] for s in samples])
        values = torch.stack([s[1] for s in samples]).view(-1, 1)
        next_human_states = torch.cat([s[2] for s in samples])
        self.v_optimizer.zero_grad()
        outputs = self.policy.value_estimator((robot_states, human_states))
        value_loss = self.criterion(outputs, values)
        value_loss.backward()
        self.v_optimizer.step()
        self.s_optimizer.zero_grad()
        emb = self.policy.state_predictor.graph_model((robot_states, human_states))
        pred = self.policy.state_predictor.human_motion_predictor(emb)[:, 1:, :]
        state_loss = self.criterion(pred, next_human_states)
        state_loss.backward()
        self.s_optimizer.step()
        return value_loss.item(), state_loss.item()


def make_batches(n):
    g = torch.Generator().manual_seed(22)
    steps = []
    for _ in range(n):
        robot_state = torch.randn(1, 9, generator=g)
        human_states = torch.randn(5, 5, generator=g)
        visible = torch.rand(5, generator=g) > 0.3
        reward = torch.randn((), generator=g) * 0.1
        steps.append((robot_state, human_states, visible, reward))
    return steps


def run(batches):
    torch.manual_seed(0)
    policy = ModelPredictiveRL()
    memory = ReplayMemory()
    trainer = MPRLTrainer(policy, memory)
    average_loss = 0.0
    prev = None
    for robot_state, human_states, visible, reward in batches:
        ob = (robot_state, human_states, visible)
        action = policy.predict(ob)
        if prev is not None:
            memory.push((prev, reward, human_states.unsqueeze(0)))
        prev = policy.last_state
        if len(memory.memory) >= 2:
            v_loss, s_loss = trainer.optimize_batch()
            average_loss += v_loss + s_loss
    return average_loss / len(batches)


if __name__ == "__main__":
    print(run(make_batches(5)))
