from ._deeplab import DeepLabV3Plus


def deeplabv3plus_tiny(num_classes, aux_loss=True):
    return DeepLabV3Plus(num_classes, width=16, aux_loss=aux_loss)
