"""A hook-driven training engine: the script registers hooks, the engine runs the episodes."""


class Engine:
    def __init__(self):
        hook_names = ["on_start", "on_start_epoch", "on_sample", "on_forward", "on_backward",
                      "on_end_epoch", "on_update", "on_end"]
        self.hooks = {}
        for hook_name in hook_names:
            self.hooks[hook_name] = lambda state: None

    def train(self, **kwargs):
        state = {
            "model": kwargs["model"],
            "loader": kwargs["loader"],
            "optim_method": kwargs["optim_method"],
            "optim_config": kwargs["optim_config"],
            "max_epoch": kwargs["max_epoch"],
            "epoch": 0,
            "t": 0,
            "batch": 0,
            "stop": False,
        }
        state["optimizer"] = state["optim_method"](state["model"].parameters(), **state["optim_config"])

        self.hooks["on_start"](state)
        while state["epoch"] < state["max_epoch"] and not state["stop"]:
            state["model"].train()
            self.hooks["on_start_epoch"](state)
            state["epoch_size"] = len(state["loader"])
            for sample in state["loader"]:
                state["sample"] = sample
                self.hooks["on_sample"](state)

                state["optimizer"].zero_grad()
                loss, state["output"] = state["model"].loss(state["sample"])
                self.hooks["on_forward"](state)

                loss.backward()
                self.hooks["on_backward"](state)

                state["optimizer"].step()
                state["t"] += 1
                state["batch"] += 1
                self.hooks["on_update"](state)
            state["epoch"] += 1
            state["batch"] = 0
            self.hooks["on_end_epoch"](state)
        self.hooks["on_end"](state)
        return state
