def get_model(model_name, args):
    name = model_name.lower()
    if name == "protoaug":
        from models.protoaug import ProtoAug
        return ProtoAug(args)
    else:
        assert 0, "Unknown model {}".format(model_name)
