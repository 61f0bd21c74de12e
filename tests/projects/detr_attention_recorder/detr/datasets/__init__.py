from .coco import build as build_coco


def build_dataset(image_set, args):
    if args.dataset_file == 'synthetic_coco':
        return build_coco(image_set, args)
    raise ValueError(f'dataset {args.dataset_file} not supported')
