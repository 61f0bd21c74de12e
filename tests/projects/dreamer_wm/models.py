import copy

import torch
from torch import nn

import networks
import tools

to_np = lambda x: x.detach().cpu().numpy()


class RewardEMA(object):
    """running mean and std"""

    def __init__(self, device, alpha=1e-2):
        self.device = device
        self.alpha = alpha
        self.range = torch.tensor([0.05, 0.95]).to(device)

    def __call__(self, x, ema_vals):
        flat_x = torch.flatten(x.detach())
        x_quantile = torch.quantile(input=flat_x, q=self.range)
        # this should be in-place operation
        ema_vals[:] = self.alpha * x_quantile + (1 - self.alpha) * ema_vals
        scale = torch.clip(ema_vals[1] - ema_vals[0], min=1.0)
        offset = ema_vals[0]
        return offset.detach(), scale.detach()


class WorldModel(nn.Module):
    def __init__(self, obs_space, act_space, step, config):
        super(WorldModel, self).__init__()
        self._step = step
        self._config = config
        shapes = {k: tuple(v.shape) for k, v in obs_space.spaces.items()}
        self.encoder = networks.MultiEncoder(shapes, **config.encoder)
        self.embed_size = self.encoder.outdim
        self.dynamics = networks.RSSM(
            config.dyn_stoch,
            config.dyn_deter,
            config.dyn_hidden,
            config.dyn_rec_depth,
            config.act,
            config.norm,
            config.dyn_min_std,
            config.initial,
            config.num_actions,
            self.embed_size,
            config.device,
        )
        self.heads = nn.ModuleDict()
        feat_size = config.dyn_stoch + config.dyn_deter
        self.heads["decoder"] = networks.MultiDecoder(feat_size, shapes, **config.decoder)
        self.heads["reward"] = networks.MLP(feat_size, (), config.reward_layers, config.units, config.act,
                                            config.norm, dist="normal_std_fixed", outscale=0.0)
        self.heads["cont"] = networks.MLP(feat_size, (), config.cont_layers, config.units, config.act,
                                          config.norm, dist="binary", outscale=1.0)
        for name in config.grad_heads:
            assert name in self.heads, name
        self._model_opt = tools.Optimizer("model", self.parameters(), config.model_lr, config.opt_eps,
                                          config.grad_clip, config.weight_decay, opt=config.opt)
        self._scales = dict(reward=config.reward_scale, cont=config.cont_scale)
        # running posterior entropy, reported (and reset) with the other scalars
        self._ent_sum = 0.0
        self._ent_count = 0

    def _train(self, data):
        # action (batch_size, batch_length, act_dim)
        # obs (batch_size, batch_length, obs_dim)
        # reward (batch_size, batch_length)
        data = self.preprocess(data)

        embed = self.encoder(data)
        post, prior = self.dynamics.observe(embed, data["action"], data["is_first"])
        kl_free = tools.schedule(self._config.kl_free, self._step)
        dyn_scale = tools.schedule(self._config.dyn_scale, self._step)
        rep_scale = tools.schedule(self._config.rep_scale, self._step)
        kl_loss, kl_value, dyn_loss, rep_loss = self.dynamics.kl_loss(post, prior, kl_free, dyn_scale, rep_scale)
        preds = {}
        for name, head in self.heads.items():
            grad_head = name in self._config.grad_heads
            feat = self.dynamics.get_feat(post)
            feat = feat if grad_head else feat.detach()
            pred = head(feat)
            if type(pred) is dict:
                preds.update(pred)
            else:
                preds[name] = pred
        losses = {}
        for name, pred in preds.items():
            like = pred.log_prob(data[name])
            losses[name] = -torch.mean(like) * self._scales.get(name, 1.0)
        model_loss = sum(losses.values()) + kl_loss.mean()
        metrics = self._model_opt(model_loss, self.parameters())

        metrics.update({f"{name}_loss": to_np(loss) for name, loss in losses.items()})
        metrics["kl_free"] = kl_free
        metrics["dyn_scale"] = dyn_scale
        metrics["rep_scale"] = rep_scale
        metrics["dyn_loss"] = to_np(dyn_loss.mean())
        metrics["rep_loss"] = to_np(rep_loss.mean())
        metrics["kl"] = to_np(torch.mean(kl_value))
        metrics["prior_ent"] = to_np(torch.mean(self.dynamics.get_dist(prior).entropy()))
        self._ent_sum += torch.mean(self.dynamics.get_dist(post).entropy())  # known-miss: TLK101
        self._ent_count += 1
        context = dict(
            embed=embed,
            feat=self.dynamics.get_feat(post),
            kl=kl_value,
        )
        post = {k: v.detach() for k, v in post.items()}
        return post, context, metrics

    def report_entropy(self):
        value = float(self._ent_sum) / max(self._ent_count, 1)
        self._ent_sum, self._ent_count = 0.0, 0
        return value

    def preprocess(self, obs):
        obs = obs.copy()
        if "reward" in obs:
            obs["reward"] = torch.Tensor(obs["reward"]).unsqueeze(-1)
        if "discount" in obs:
            obs["discount"] *= self._config.discount
            obs["discount"] = torch.Tensor(obs["discount"]).unsqueeze(-1)
        if "is_terminal" in obs:
            # this label is necessary to train cont_head
            obs["cont"] = torch.Tensor(1.0 - obs["is_terminal"]).unsqueeze(-1)
        obs = {k: torch.Tensor(v).to(self._config.device) for k, v in obs.items()}
        return obs


class ImagBehavior(nn.Module):
    def __init__(self, config, world_model):
        super(ImagBehavior, self).__init__()
        self._config = config
        self._world_model = world_model
        feat_size = config.dyn_stoch + config.dyn_deter
        self.actor = networks.ActionHead(feat_size, config.num_actions, config.actor_layers, config.units,
                                         config.act, config.norm, config.actor_dist, config.actor_init_std,
                                         config.actor_min_std, config.actor_max_std, outscale=1.0)
        self.value = networks.MLP(feat_size, (), config.value_layers, config.units, config.act, config.norm,
                                  "normal_std_fixed", outscale=0.0)
        if config.slow_value_target:
            self._slow_value = copy.deepcopy(self.value)
            self._updates = 0
        kw = dict(wd=config.weight_decay, opt=config.opt)
        self._actor_opt = tools.Optimizer("actor", self.actor.parameters(), config.actor_lr, config.ac_opt_eps,
                                          config.actor_grad_clip, **kw)
        self._value_opt = tools.Optimizer("value", self.value.parameters(), config.value_lr, config.ac_opt_eps,
                                          config.value_grad_clip, **kw)
        if self._config.reward_EMA:
            # register ema_vals to nn.Module for enabling torch.save and torch.load
            self.register_buffer("ema_vals", torch.zeros((2,)).to(self._config.device))
            self.reward_ema = RewardEMA(device=self._config.device)

    def _train(self, start, objective):
        self._update_slow_target()
        metrics = {}

        imag_feat, imag_state, imag_action = self._imagine(start, self.actor, self._config.imag_horizon)
        reward = objective(imag_feat, imag_state, imag_action)
        actor_ent = self.actor(imag_feat).entropy()
        state_ent = self._world_model.dynamics.get_dist(imag_state).entropy()
        # this target is not scaled by ema or sym_log.
        target, weights, base = self._compute_target(imag_feat, imag_state, reward)
        actor_loss, mets = self._compute_actor_loss(imag_feat, imag_action, target, weights, base)
        actor_loss -= self._config.actor_entropy * actor_ent[:-1, ..., None]
        actor_loss = torch.mean(actor_loss)
        metrics.update(mets)
        value_input = imag_feat

        value = self.value(value_input[:-1].detach())
        target = torch.stack(target, dim=0)
        # (time, batch, 1), (time, batch, 1) -> (time, batch)
        value_loss = -value.log_prob(target.detach())
        slow_target = self._slow_value(value_input[:-1].detach())
        if self._config.slow_value_target:
            value_loss = value_loss - value.log_prob(slow_target.mode().detach())
        # (time, batch, 1), (time, batch, 1) -> (1,)
        value_loss = torch.mean(weights[:-1] * value_loss[:, :, None])

        metrics.update(tools.tensorstats(value.mode(), "value"))
        metrics.update(tools.tensorstats(target, "target"))
        metrics.update(tools.tensorstats(reward, "imag_reward"))
        metrics.update(tools.tensorstats(imag_action, "imag_action"))
        metrics["actor_entropy"] = to_np(torch.mean(actor_ent))
        metrics["imag_state_entropy"] = torch.mean(state_ent)
        metrics.update(self._actor_opt(actor_loss, self.actor.parameters()))
        metrics.update(self._value_opt(value_loss, self.value.parameters()))
        return imag_feat, imag_state, imag_action, weights, metrics

    def _imagine(self, start, policy, horizon):
        dynamics = self._world_model.dynamics
        flatten = lambda x: x.reshape([-1] + list(x.shape[2:]))
        start = {k: flatten(v) for k, v in start.items()}

        def step(prev, _):
            state, _, _ = prev
            feat = dynamics.get_feat(state)
            inp = feat.detach()
            action = policy(inp).sample()
            succ = dynamics.img_step(state, action)
            return succ, feat, action

        succ, feats, actions = tools.static_scan(step, [torch.arange(horizon)], (start, None, None))
        states = {k: torch.cat([start[k][None], v[:-1]], 0) for k, v in succ.items()}
        return feats, states, actions

    def _compute_target(self, imag_feat, imag_state, reward):
        if "cont" in self._world_model.heads:
            inp = self._world_model.dynamics.get_feat(imag_state)
            discount = self._config.discount * self._world_model.heads["cont"](inp).mean
        else:
            discount = self._config.discount * torch.ones_like(reward)
        value = self.value(imag_feat).mode()
        target = tools.lambda_return(reward[:-1], value[:-1], discount[:-1], bootstrap=value[-1],
                                     lambda_=self._config.discount_lambda, axis=0)
        weights = torch.cumprod(torch.cat([torch.ones_like(discount[:1]), discount[:-1]], 0), 0).detach()
        return target, weights, value[:-1]

    def _compute_actor_loss(self, imag_feat, imag_action, target, weights, base):
        metrics = {}
        target = torch.stack(target, dim=0)
        if self._config.reward_EMA:
            offset, scale = self.reward_ema(target, self.ema_vals)
            normed_target = (target - offset) / scale
            normed_base = (base - offset) / scale
            adv = normed_target - normed_base
            metrics.update(tools.tensorstats(normed_target, "normed_target"))
            metrics["EMA_005"] = to_np(self.ema_vals[0])
            metrics["EMA_095"] = to_np(self.ema_vals[1])
        else:
            adv = target - base
        # imag_gradient == "dynamics": backprop the return through the learned dynamics
        actor_target = adv
        actor_loss = -weights[:-1] * actor_target
        return actor_loss, metrics

    def _update_slow_target(self):
        if self._config.slow_value_target:
            if self._updates % self._config.slow_target_update == 0:
                mix = self._config.slow_target_fraction
                for s, d in zip(self.value.parameters(), self._slow_value.parameters()):
                    d.data = mix * s.data + (1 - mix) * d.data
            self._updates += 1
