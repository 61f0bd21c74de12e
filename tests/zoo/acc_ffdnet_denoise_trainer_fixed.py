# Source: https://github.com/Aoi-hosizora/FFDNet_pytorch/issues/4
# Shape: the epoch sums are built from float(loss), so each batch graph is released after its backward; only python floats are kept.
# Verdict: clean
import torch
import torch.nn as nn
import torch.optim as optim


def add_batch_noise(images, noise_sigma):
    noise = torch.randn_like(images) * noise_sigma
    return images + noise


def weights_init_kaiming(m):
    if isinstance(m, nn.Conv2d):
        nn.init.kaiming_normal_(m.weight.data, a=0, mode="fan_in")


class FFDNet(nn.Module):
    """Tiny FFDNet: the noise level map is concatenated to the (downsampled) image."""

    def __init__(self, channels=1, features=16, num_layers=3):
        super().__init__()
        layers = [nn.Conv2d(channels * 4 + 1, features, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(num_layers - 2):
            layers += [nn.Conv2d(features, features, 3, padding=1), nn.BatchNorm2d(features), nn.ReLU(inplace=True)]
        layers += [nn.Conv2d(features, channels * 4, 3, padding=1)]
        self.body = nn.Sequential(*layers)

    def forward(self, x, noise_sigma):
        down = nn.functional.pixel_unshuffle(x, 2)
        sigma_map = noise_sigma.view(-1, 1, 1, 1).expand(-1, 1, down.shape[2], down.shape[3])
        out = self.body(torch.cat([down, sigma_map], dim=1))
        return nn.functional.pixel_shuffle(out, 2)


def make_batches(n, batch_size=8, size=16):
    g = torch.Generator().manual_seed(0)
    return [torch.rand(batch_size, 1, size, size, generator=g) for _ in range(n)]


def train(model, optimizer, loss_fn, train_batches, train_noises):
    loss_idx = 0
    train_losses = 0
    model.train()
    for batch_idx, batch_data in enumerate(train_batches):
        int_noise_sigma = train_noises[batch_idx % len(train_noises)]
        noise_sigma = int_noise_sigma / 255
        new_images = add_batch_noise(batch_data, noise_sigma)
        noise_sigma = torch.FloatTensor([noise_sigma for _ in range(new_images.shape[0])])

        images_pred = model(new_images, noise_sigma)
        train_loss = loss_fn(images_pred, batch_data)
        train_losses += float(train_loss)
        loss_idx += 1

        optimizer.zero_grad()
        train_loss.backward()
        optimizer.step()
    train_losses /= loss_idx
    return train_losses


def evaluate(model, loss_fn, val_batches, val_noises):
    loss_idx = 0
    val_losses = 0
    model.eval()
    for batch_data in val_batches:
        for int_noise_sigma in val_noises:
            noise_sigma = int_noise_sigma / 255
            new_images = add_batch_noise(batch_data, noise_sigma)
            noise_sigma = torch.FloatTensor([noise_sigma for _ in range(new_images.shape[0])])
            images_pred = model(new_images, noise_sigma)
            val_loss = loss_fn(images_pred, batch_data)
            val_losses += float(val_loss)
            loss_idx += 1
    val_losses /= loss_idx
    return val_losses


def run(steps):
    torch.manual_seed(0)
    model = FFDNet()
    model.apply(weights_init_kaiming)
    loss_fn = nn.MSELoss(reduction="sum")
    optimizer = optim.Adam(model.parameters(), lr=1e-3)
    train_noises = list(range(0, 75, 15))
    val_noises = list(range(0, 60, 30))
    train_batches = make_batches(steps)
    val_batches = make_batches(2)
    avg_train = train(model, optimizer, loss_fn, train_batches, train_noises)
    avg_val = evaluate(model, loss_fn, val_batches, val_noises)
    print(f"Avg_Train_Loss: {avg_train}, Avg_Val_Loss: {avg_val}")
    return {"model": model, "avg_train_loss": avg_train, "avg_val_loss": avg_val}


if __name__ == "__main__":
    run(5)
