# Modelled on accumulate() of rosinality/stylegan2-pytorch (train.py), in its own module: the EMA
# generator follows the trained one through .data, so no graph is recorded.
def accumulate(model1, model2, decay=0.999):
    par1 = dict(model1.named_parameters())
    par2 = dict(model2.named_parameters())
    for k in par1.keys():
        par1[k].data.mul_(decay).add_(par2[k].data, alpha=1 - decay)


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag
