# Source: https://github.com/alison-carrera/onn/pull/4
# Shape: the online hedge-backpropagation model with its mixing-weight update already under torch.no_grad(), but called with show_loss=True: update_weights appends the combined-output loss tensor itself to self.loss_array, which is only averaged and cleared every 1000 calls; every kept loss holds its call's forward graph, whose saved activations the layer-wise backward(retain_graph=True) calls left in place.
# Verdict: leak
import torch
import torch.nn as nn
import torch.nn.functional as F


class ONN:
    def __init__(self, features_size, max_num_hidden_layers, qtd_neuron_per_hidden_layer, n_classes,
                 batch_size=1, b=0.99, n=0.01, s=0.2):
        self.features_size = features_size
        self.max_num_hidden_layers = max_num_hidden_layers
        self.n_classes = n_classes
        self.batch_size = batch_size
        self.b = torch.tensor(b)
        self.n = torch.tensor(n)
        self.s = torch.tensor(s)
        hidden = [nn.Linear(features_size, qtd_neuron_per_hidden_layer)]
        hidden += [nn.Linear(qtd_neuron_per_hidden_layer, qtd_neuron_per_hidden_layer) for _ in range(max_num_hidden_layers - 1)]
        self.hidden_layers = nn.ModuleList(hidden)
        self.output_layers = nn.ModuleList([nn.Linear(qtd_neuron_per_hidden_layer, n_classes) for _ in range(max_num_hidden_layers)])
        self.alpha = torch.full((max_num_hidden_layers,), 1.0 / (max_num_hidden_layers + 1))
        self.loss_array = []

    def zero_grad(self):
        for layer in list(self.output_layers) + list(self.hidden_layers):
            if layer.weight.grad is not None:
                layer.weight.grad.data.fill_(0)
                layer.bias.grad.data.fill_(0)

    def forward(self, X):
        X = torch.as_tensor(X, dtype=torch.float32)
        hidden_connections = [F.relu(self.hidden_layers[0](X))]
        for i in range(1, self.max_num_hidden_layers):
            hidden_connections.append(F.relu(self.hidden_layers[i](hidden_connections[i - 1])))
        return torch.stack([self.output_layers[i](hidden_connections[i]) for i in range(self.max_num_hidden_layers)])

    def update_weights(self, X, Y, show_loss):
        Y = torch.as_tensor(Y)
        predictions_per_layer = self.forward(X)
        losses_per_layer = []
        for out in predictions_per_layer:
            loss = F.cross_entropy(out.view(self.batch_size, self.n_classes), Y.view(self.batch_size).long())
            losses_per_layer.append(loss)

        w, b = [], []
        for i in range(len(losses_per_layer)):
            losses_per_layer[i].backward(retain_graph=True)
            self.output_layers[i].weight.data -= self.n * self.alpha[i] * self.output_layers[i].weight.grad.data
            self.output_layers[i].bias.data -= self.n * self.alpha[i] * self.output_layers[i].bias.grad.data
            w.append(self.alpha[i] * self.hidden_layers[i].weight.grad.data)
            b.append(self.alpha[i] * self.hidden_layers[i].bias.grad.data)
            self.zero_grad()

        for i in range(1, len(losses_per_layer)):
            self.hidden_layers[i].weight.data -= self.n * torch.sum(torch.cat(w[i:]))
            self.hidden_layers[i].bias.data -= self.n * torch.sum(torch.cat(b[i:]))

        with torch.no_grad():
            for i in range(len(losses_per_layer)):
                self.alpha[i] *= torch.pow(self.b, losses_per_layer[i])
                self.alpha[i] = torch.max(self.alpha[i], self.s / self.max_num_hidden_layers)
            self.alpha = self.alpha / torch.sum(self.alpha)

        if show_loss:
            real_output = torch.sum(self.alpha.view(-1, 1, 1) * predictions_per_layer, 0)
            loss = F.cross_entropy(real_output.view(self.batch_size, self.n_classes), Y.view(self.batch_size).long())
            self.loss_array.append(loss)  # TLK102
            if len(self.loss_array) % 1000 == 0:
                print("Training Loss: " + str(torch.stack(self.loss_array).mean().item()))
                self.loss_array.clear()

    def partial_fit(self, X_data, Y_data, show_loss=False):
        self.update_weights(X_data, Y_data, show_loss)

    def predict(self, X_data):
        with torch.no_grad():
            scores = torch.sum(self.alpha.view(-1, 1, 1) * self.forward(X_data), 0)
        return torch.argmax(scores, dim=1).tolist()


if __name__ == "__main__":
    torch.manual_seed(0)
    onn = ONN(features_size=64, max_num_hidden_layers=5, qtd_neuron_per_hidden_layer=256, n_classes=4, batch_size=8)
    for step in range(200):
        X = torch.randn(8, 64)
        Y = torch.randint(0, 4, (8,))
        onn.partial_fit(X, Y, show_loss=True)
    print(onn.predict(torch.randn(4, 64)))
