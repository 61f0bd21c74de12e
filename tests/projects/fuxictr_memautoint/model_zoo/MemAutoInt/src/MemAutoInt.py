# =========================================================================
# AutoInt + a global interest memory shared across mini-batches.
# Layout follows FuxiCTR's model_zoo/AutoInt/src/AutoInt.py
# =========================================================================
import torch
from torch import nn

from fuxictr.pytorch.layers import FeatureEmbedding, MLP_Block, MultiHeadSelfAttention
from fuxictr.pytorch.models import BaseModel


class MemAutoInt(BaseModel):
    def __init__(self,
                 feature_map,
                 model_id="MemAutoInt",
                 gpu=-1,
                 learning_rate=1e-3,
                 embedding_dim=16,
                 dnn_hidden_units=[64, 32],
                 dnn_activations="ReLU",
                 attention_layers=2,
                 num_heads=2,
                 attention_dim=16,
                 net_dropout=0,
                 layer_norm=False,
                 use_residual=True,
                 use_scale=True,
                 memory_slots=8,
                 memory_decay=0.9,
                 keep_attention=False,
                 embedding_regularizer=None,
                 net_regularizer=None,
                 **kwargs):
        super(MemAutoInt, self).__init__(feature_map,
                                         model_id=model_id,
                                         gpu=gpu,
                                         embedding_regularizer=embedding_regularizer,
                                         net_regularizer=net_regularizer,
                                         **kwargs)
        self.embedding_layer = FeatureEmbedding(feature_map, embedding_dim)
        self.self_attention = nn.Sequential(
            *[MultiHeadSelfAttention(embedding_dim if i == 0 else attention_dim,
                                     attention_dim=attention_dim,
                                     num_heads=num_heads,
                                     dropout_rate=net_dropout,
                                     use_residual=use_residual,
                                     use_scale=use_scale,
                                     layer_norm=layer_norm,
                                     keep_attention=keep_attention)
              for i in range(attention_layers)])
        self.memory_decay = memory_decay
        # global interest memory: slots are read by every batch and written back after it
        self.register_buffer("memory", torch.randn(memory_slots, embedding_dim) * 0.1, persistent=False)
        input_dim = feature_map.num_fields * attention_dim + embedding_dim
        self.dnn = MLP_Block(input_dim=input_dim,
                             output_dim=1,
                             hidden_units=dnn_hidden_units,
                             hidden_activations=dnn_activations,
                             output_activation=None,
                             dropout_rates=net_dropout)
        self.compile(kwargs["optimizer"], kwargs["loss"], learning_rate)
        self.reset_parameters()
        self.model_to_device()

    def read_memory(self, query):
        scores = torch.matmul(query, self.memory.t()).softmax(dim=-1)  # (B, slots)
        return torch.matmul(scores, self.memory)  # (B, D)

    def write_memory(self, query):
        addressing = torch.matmul(query, self.memory.t()).softmax(dim=-1)  # (B, slots)
        update = torch.tanh(torch.matmul(addressing.t(), query) / query.size(0))  # (slots, D)
        self.memory = self.memory_decay * self.memory + (1 - self.memory_decay) * update

    def forward(self, inputs):
        X = self.get_inputs(inputs)
        feature_emb = self.embedding_layer(X)  # (B, F, D)
        attention_out = self.self_attention(feature_emb)
        query = feature_emb.mean(dim=1)
        memory_read = self.read_memory(query)
        if self.training:
            self.write_memory(query)
        dnn_in = torch.cat([torch.flatten(attention_out, start_dim=1), memory_read], dim=-1)
        y_pred = self.output_activation(self.dnn(dnn_in))
        return_dict = {"y_pred": y_pred}
        return return_dict

    def train_step(self, batch_data):
        self.optimizer.zero_grad()
        return_dict = self.forward(batch_data)
        y_true = self.get_labels(batch_data)
        loss = self.compute_loss(return_dict, y_true)
        # the memory read in this batch was written by the previous batches
        loss.backward(retain_graph=True)  # expect: TLK202
        nn.utils.clip_grad_norm_(self.parameters(), self._max_gradient_norm)
        self.optimizer.step()
        return loss, return_dict

    def field_interaction_heatmap(self):
        return self.self_attention[-1].field_interaction_heatmap()
