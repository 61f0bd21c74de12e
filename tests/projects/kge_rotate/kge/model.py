import torch
import torch.nn as nn
import torch.nn.functional as F


class KGEModel(nn.Module):
    def __init__(self, nentity, nrelation, hidden_dim, gamma):
        super().__init__()
        self.nentity, self.nrelation = nentity, nrelation
        self.gamma = nn.Parameter(torch.Tensor([gamma]), requires_grad=False)
        self.epsilon = 2.0
        self.embedding_range = nn.Parameter(torch.Tensor([(gamma + self.epsilon) / hidden_dim]), requires_grad=False)
        self.entity_embedding = nn.Parameter(torch.zeros(nentity, hidden_dim * 2))
        self.relation_embedding = nn.Parameter(torch.zeros(nrelation, hidden_dim))
        r = self.embedding_range.item()
        nn.init.uniform_(self.entity_embedding, -r, r)
        nn.init.uniform_(self.relation_embedding, -r, r)

    def forward(self, sample, mode="single"):
        if mode == "single":
            head = self.entity_embedding[sample[:, 0]].unsqueeze(1)
            relation = self.relation_embedding[sample[:, 1]].unsqueeze(1)
            tail = self.entity_embedding[sample[:, 2]].unsqueeze(1)
        else:
            pos, neg = sample
            b, n = neg.shape
            relation = self.relation_embedding[pos[:, 1]].unsqueeze(1)
            if mode == "head-batch":
                head = self.entity_embedding[neg.reshape(-1)].view(b, n, -1)
                tail = self.entity_embedding[pos[:, 2]].unsqueeze(1)
            else:
                head = self.entity_embedding[pos[:, 0]].unsqueeze(1)
                tail = self.entity_embedding[neg.reshape(-1)].view(b, n, -1)
        return self.rotate(head, relation, tail, mode)

    def rotate(self, head, relation, tail, mode):
        pi = 3.141592653589793
        re_head, im_head = torch.chunk(head, 2, dim=2)
        re_tail, im_tail = torch.chunk(tail, 2, dim=2)
        phase = relation / (self.embedding_range.item() / pi)
        re_rel, im_rel = torch.cos(phase), torch.sin(phase)
        if mode == "head-batch":
            re_s = re_rel * re_tail + im_rel * im_tail - re_head
            im_s = re_rel * im_tail - im_rel * re_tail - im_head
        else:
            re_s = re_head * re_rel - im_head * im_rel - re_tail
            im_s = re_head * im_rel + im_head * re_rel - im_tail
        score = torch.stack([re_s, im_s], dim=0).norm(dim=0)
        return self.gamma.item() - score.sum(dim=2)

    @staticmethod
    def train_step(model, optimizer, train_iterator, args, hard_queue=None, penalty=None):
        model.train()
        optimizer.zero_grad()
        positive_sample, negative_sample, subsampling_weight, mode = next(train_iterator)
        negative_score = model((positive_sample, negative_sample), mode=mode)
        if hard_queue is not None:
            hard_queue.push(negative_score)  # expect: TLK102
            temp = hard_queue.temperature(args.adversarial_temperature)
        else:
            temp = args.adversarial_temperature
        # self-adversarial weights carry no gradient
        negative_score = (F.softmax(negative_score * temp, dim=1).detach()
                          * F.logsigmoid(-negative_score)).sum(dim=1)
        positive_score = F.logsigmoid(model(positive_sample)).squeeze(dim=1)
        positive_sample_loss = -(subsampling_weight * positive_score).sum() / subsampling_weight.sum()
        negative_sample_loss = -(subsampling_weight * negative_score).sum() / subsampling_weight.sum()
        loss = (positive_sample_loss + negative_sample_loss) / 2
        regularization = args.regularization * (
            model.entity_embedding.norm(p=3) ** 3 + model.relation_embedding.norm(p=3) ** 3)
        loss = loss + regularization
        if penalty is not None:
            loss = loss + penalty(loss, model.entity_embedding)
        loss.backward()
        optimizer.step()
        return {
            "regularization": regularization,  # kept by train.py's training_logs (reported there)
            "positive_sample_loss": positive_sample_loss.item(),
            "negative_sample_loss": negative_sample_loss.item(),
            "loss": loss.item(),
        }

    @staticmethod
    def test_step(model, test_triples, args):
        model.eval()
        logs = []
        with torch.no_grad():
            all_entities = torch.arange(model.nentity)
            for h, r, t in test_triples.tolist():
                cand = torch.stack([torch.full_like(all_entities, h), torch.full_like(all_entities, r), all_entities], 1)
                score = model(cand).squeeze(1)
                score += (all_entities == t).float() * 0.0
                rank = 1 + (score > score[t]).sum()
                logs.append({"MRR": 1.0 / rank, "HITS@3": (rank <= 3).float()})
        return {m: sum(lg[m] for lg in logs) / len(logs) for m in logs[0]}
