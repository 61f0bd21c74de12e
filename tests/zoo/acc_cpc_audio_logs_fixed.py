# Source: https://github.com/facebookresearch/CPC_audio/blob/323f1df91c4c056b4e5ffd86461ef968c0f83d30/cpc/train.py
# Shape: trainStep keeps its running per-prediction-step sums as tensors (no host sync per batch) but adds allLosses.mean(dim=0).detach(); the accuracy sums come from argmax comparisons and carry no graph.
# Verdict: clean
import time
from argparse import Namespace

import torch
import torch.nn as nn
import torch.nn.functional as F


# --------------------------------------------------------------------------- cpc/model.py
class CPCEncoder(nn.Module):
    DOWNSAMPLING = 16

    def __init__(self, sizeHidden=32):
        super().__init__()
        self.conv0 = nn.Conv1d(1, sizeHidden, 8, stride=4, padding=2)
        self.conv1 = nn.Conv1d(sizeHidden, sizeHidden, 4, stride=2, padding=1)
        self.conv2 = nn.Conv1d(sizeHidden, sizeHidden, 4, stride=2, padding=1)

    def forward(self, x):
        x = F.relu(self.conv0(x))
        x = F.relu(self.conv1(x))
        return F.relu(self.conv2(x))


class CPCAR(nn.Module):
    def __init__(self, dimEncoded=32, dimOutput=32):
        super().__init__()
        self.baseNet = nn.GRU(dimEncoded, dimOutput, num_layers=1, batch_first=True)

    def forward(self, x):
        x, _ = self.baseNet(x)
        return x


class CPCModel(nn.Module):
    def __init__(self, encoder, AR):
        super().__init__()
        self.gEncoder = encoder
        self.gAR = AR

    def forward(self, batchData, label):
        encodedData = self.gEncoder(batchData).permute(0, 2, 1)
        cFeature = self.gAR(encodedData)
        return cFeature, encodedData, label


# --------------------------------------------------------------------------- cpc/criterion/criterion.py
class CPCUnsupersivedCriterion(nn.Module):
    def __init__(self, nPredicts, dimOutputAR, dimOutputEncoder, negativeSamplingExt):
        super().__init__()
        self.wPrediction = nn.ModuleList([nn.Linear(dimOutputAR, dimOutputEncoder, bias=False)
                                          for _ in range(nPredicts)])
        self.nPredicts = nPredicts
        self.negativeSamplingExt = negativeSamplingExt

    def sampleClean(self, encodedData, windowSize):
        batchSize, nNegativeExt, dimEncoded = encodedData.size()
        outputs = []
        negExt = encodedData.contiguous().view(-1, dimEncoded)
        batchIdx = torch.randint(low=0, high=batchSize, size=(self.negativeSamplingExt * windowSize * batchSize,))
        seqIdx = torch.randint(low=1, high=nNegativeExt, size=(self.negativeSamplingExt * windowSize * batchSize,))
        baseIdx = torch.arange(0, windowSize).view(1, 1, windowSize).expand(1, self.negativeSamplingExt, windowSize) \
            .expand(batchSize, self.negativeSamplingExt, windowSize)
        seqIdx += baseIdx.contiguous().view(-1)
        seqIdx = torch.remainder(seqIdx, nNegativeExt)
        extIdx = seqIdx + batchIdx * nNegativeExt
        negExt = negExt[extIdx].view(batchSize, self.negativeSamplingExt, windowSize, dimEncoded)
        labelLoss = torch.zeros((batchSize * windowSize), dtype=torch.long)
        for k in range(1, self.nPredicts + 1):
            if k < self.nPredicts:
                posSeq = encodedData[:, k:-(self.nPredicts - k)]
            else:
                posSeq = encodedData[:, k:]
            posSeq = posSeq.view(batchSize, 1, posSeq.size(1), dimEncoded)
            outputs.append(torch.cat([posSeq, negExt], dim=1))
        return outputs, labelLoss

    def forward(self, cFeature, encodedData, label):
        batchSize, seqSize, dimAR = cFeature.size()
        windowSize = seqSize - self.nPredicts
        cFeature = cFeature[:, :windowSize]
        sampledData, labelLoss = self.sampleClean(encodedData, windowSize)
        outLosses, outAcc = [], []
        for k, locPreds in enumerate(self.wPrediction):
            pred = locPreds(cFeature).view(batchSize, 1, windowSize, -1)
            predictions = (sampledData[k] * pred).mean(dim=3)  # [B, 1+neg, W]
            predictions = predictions.permute(0, 2, 1).contiguous().view(batchSize * windowSize, -1)
            lossK = F.cross_entropy(predictions, labelLoss)
            outLosses.append(lossK.view(1, -1))
            _, predsIndex = predictions.max(1)
            outAcc.append(torch.sum(predsIndex == labelLoss).float().view(1, -1))
        return torch.cat(outLosses, dim=1), torch.cat(outAcc, dim=1) / (windowSize * batchSize)


# --------------------------------------------------------------------------- cpc/utils/misc.py
def update_logs(logs, logStep, prevlogs=None):
    out = {}
    for key in logs:
        out[key] = logs[key]
        if prevlogs is not None:
            out[key] = out[key] - prevlogs[key]
        out[key] = out[key] / logStep
    return out


def show_logs(text, logs):
    return text + " " + " ".join(f"{k}: {[round(float(v), 4) for v in vals.reshape(-1)]}"
                                 for k, vals in logs.items() if torch.is_tensor(vals))


# --------------------------------------------------------------------------- cpc/train.py
def trainStep(dataLoader, cpcModel, cpcCriterion, optimizer, scheduler, loggingStep):
    cpcModel.train()
    cpcCriterion.train()
    start_time = time.perf_counter()
    n_examples = 0
    logs, lastlogs = {}, None
    iter = 0
    for step, fulldata in enumerate(dataLoader):
        batchData, label = fulldata
        n_examples += batchData.size(0)
        c_feature, encoded_data, label = cpcModel(batchData, label)
        allLosses, allAcc = cpcCriterion(c_feature, encoded_data, label)
        totLoss = allLosses.sum()
        totLoss.backward()
        optimizer.step()
        optimizer.zero_grad()

        if "locLoss_train" not in logs:
            logs["locLoss_train"] = torch.zeros(allLosses.size(1))
            logs["locAcc_train"] = torch.zeros(allLosses.size(1))

        iter += 1
        logs["locLoss_train"] += allLosses.mean(dim=0).detach()
        logs["locAcc_train"] += allAcc.mean(dim=0)

        if (step + 1) % loggingStep == 0:
            new_time = time.perf_counter()
            locLogs = update_logs(logs, loggingStep, lastlogs)
            lastlogs = {k: v.clone() for k, v in logs.items()}
            show_logs("Training loss", locLogs)
            start_time, n_examples = new_time, 0

    if scheduler is not None:
        scheduler.step()
    logs = update_logs(logs, iter)
    logs["iter"] = iter
    return logs


def make_batches(n, batchSize=8, sizeWindow=512, nSpeakers=4, seed=0):
    """Synthetic 'speech': speaker-dependent sums of sinusoids with noise."""
    g = torch.Generator().manual_seed(seed)
    freqs = 0.02 + 0.1 * torch.rand(nSpeakers, 3, generator=g)
    tt = torch.arange(sizeWindow).float()
    for _ in range(n):
        spk = torch.randint(0, nSpeakers, (batchSize,), generator=g)
        phase = 6.28 * torch.rand(batchSize, 3, 1, generator=g)
        wav = torch.sin(freqs[spk][:, :, None] * tt[None, None, :] + phase).sum(1, keepdim=True)
        yield wav + 0.1 * torch.randn(batchSize, 1, sizeWindow, generator=g), spk


def run(steps):
    torch.manual_seed(0)
    args = Namespace(hiddenEncoder=32, hiddenGar=32, nPredicts=4, negativeSamplingExt=8,
                     learningRate=2e-4, beta1=0.9, beta2=0.999, epsilon=1e-8, logging_step=1000)
    cpcModel = CPCModel(CPCEncoder(args.hiddenEncoder), CPCAR(args.hiddenEncoder, args.hiddenGar))
    cpcCriterion = CPCUnsupersivedCriterion(args.nPredicts, args.hiddenGar, args.hiddenEncoder,
                                            args.negativeSamplingExt)
    g_params = list(cpcCriterion.parameters()) + list(cpcModel.parameters())
    optimizer = torch.optim.Adam(g_params, lr=args.learningRate, betas=(args.beta1, args.beta2), eps=args.epsilon)
    logs = trainStep(make_batches(steps), cpcModel, cpcCriterion, optimizer, None, args.logging_step)
    return {"logs": logs, "model": cpcModel, "criterion": cpcCriterion}


if __name__ == "__main__":
    run(10)
