# Source: https://github.com/jacobgil/pytorch-grad-cam/issues/14
# Shape: Grad-CAM over a folder of images backwards the one-hot class score with retain_graph=True; it is the only backward for each image, so the retained graph just stays alive until the next image's forward (a peak, no growth)
# Verdict: leak
import torch
import torch.nn.functional as F


class GradCam:
    def __init__(self, model, target_layer):
        self.model = model.eval()
        self.activations = None
        self.gradients = None
        target_layer.register_forward_hook(self._save_activation)
        target_layer.register_full_backward_hook(self._save_gradient)

    def _save_activation(self, module, inputs, output):
        self.activations = output.detach()

    def _save_gradient(self, module, grad_input, grad_output):
        self.gradients = grad_output[0].detach()

    def __call__(self, image, class_idx=None):
        scores = self.model(image)
        if class_idx is None:
            class_idx = scores.argmax(dim=1).item()
        one_hot = torch.zeros_like(scores)
        one_hot[0, class_idx] = 1.0
        self.model.zero_grad()
        (scores * one_hot).sum().backward(retain_graph=True)  # TLK201
        weights = self.gradients.mean(dim=(2, 3), keepdim=True)
        cam = F.relu((weights * self.activations).sum(dim=1, keepdim=True))
        cam = F.interpolate(cam, size=image.shape[-2:], mode="bilinear", align_corners=False)
        return (cam / (cam.max() + 1e-8)).squeeze().cpu()


cam = GradCam(model, model.layer4[-1])
heatmaps = [cam(img.unsqueeze(0)) for img in image_folder]
