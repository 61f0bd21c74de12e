# Modelled on: https://github.com/NM512/dreamerv3-torch
"""
Entry point: DreamerV3-style agent (world model + imagined actor-critic) on a
deterministic point-mass task. `main(steps)` runs `steps` environment steps with one
training batch per step (after a random prefill) and returns the agent, the logger and
the simulation state it would carry into the next `simulate` call.
"""
import argparse

import dreamer
import tools
import envs.toy as toy


def make_config(steps):
    return argparse.Namespace(
        seed=0,
        device="cpu",
        steps=steps,
        envs=1,
        action_repeat=1,
        time_limit=100,
        prefill=200,
        dataset_size=100000,
        log_every=10000,
        reset_every=0,
        train_every=1,
        pretrain=1,
        expl_behavior="greedy",
        expl_amount=0.0,
        eval_noise=0.0,
        eval_state_mean=False,
        collect_dyn_sample=True,
        # model
        dyn_stoch=16,
        dyn_deter=32,
        dyn_hidden=32,
        dyn_rec_depth=1,
        dyn_min_std=0.1,
        initial="learned",
        act="SiLU",
        norm=True,
        units=32,
        encoder=dict(mlp_keys="obs", act="SiLU", norm=True, mlp_layers=2, mlp_units=32, symlog_inputs=True),
        decoder=dict(mlp_keys="obs", act="SiLU", norm=True, mlp_layers=2, mlp_units=32,
                     vector_dist="normal_std_fixed", outscale=1.0),
        reward_layers=2,
        cont_layers=2,
        grad_heads=("decoder", "reward", "cont"),
        reward_scale=1.0,
        cont_scale=1.0,
        kl_free=1.0,
        dyn_scale=0.5,
        rep_scale=0.1,
        model_lr=1e-4,
        opt_eps=1e-8,
        grad_clip=1000,
        weight_decay=0.0,
        opt="adam",
        # behavior
        batch_size=8,
        batch_length=16,
        imag_horizon=6,
        discount=0.997,
        discount_lambda=0.95,
        actor_layers=2,
        actor_dist="normal",
        actor_init_std=1.0,
        actor_min_std=0.1,
        actor_max_std=1.0,
        actor_entropy=3e-4,
        actor_lr=3e-5,
        actor_grad_clip=100,
        value_layers=2,
        value_lr=3e-5,
        value_grad_clip=100,
        ac_opt_eps=1e-5,
        slow_value_target=True,
        slow_target_update=1,
        slow_target_fraction=0.02,
        reward_EMA=True,
    )


def main(steps=30):
    config = make_config(steps)
    tools.set_seed_everywhere(config.seed)
    logger = tools.Logger(None, 0)

    train_eps = dreamer.new_cache()
    train_envs = [toy.PointMass(seed=i, time_limit=config.time_limit) for i in range(config.envs)]
    acts = train_envs[0].action_space
    config.num_actions = acts.shape[0]

    prefill = max(0, config.prefill - dreamer.count_steps(train_eps))
    tools.simulate(dreamer.random_agent_for(config, acts), train_envs, train_eps, logger,
                   limit=config.dataset_size, steps=prefill)
    logger.step = config.action_repeat * dreamer.count_steps(train_eps)

    train_dataset = dreamer.make_dataset(train_eps, config)
    agent = dreamer.Dreamer(train_envs[0].observation_space, acts, config, logger, train_dataset).to(config.device)

    state = None
    state = tools.simulate(agent, train_envs, train_eps, logger, limit=config.dataset_size,
                           steps=config.steps, state=state)
    return {"agent": agent, "logger": logger, "state": state, "episodes": train_eps}


if __name__ == "__main__":
    out = main(30)
    print("updates:", out["agent"]._update_count, "episodes:", len(out["episodes"]))
