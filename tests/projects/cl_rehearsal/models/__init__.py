from models.derpp import Derpp

NAMES = {
    Derpp.NAME: Derpp,
}


def get_model(args, backbone, loss, transform):
    return NAMES[args.model](backbone, loss, args, transform)
