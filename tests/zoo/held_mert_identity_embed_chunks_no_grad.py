# Source: https://github.com/KadoBOT/ComfyUI-YuE2-Voices/issues/16
# Shape: a voice-identity check embeds a reference and each candidate song chunk by chunk, appending each chunk's pooled hidden state and keeping each candidate's similarity tensor; embed() is decorated with torch.no_grad(), so nothing stored has a graph.
# Verdict: clean
import torch
import torch.nn.functional as F

SAMPLE_RATE = 24000
CHUNK_SECONDS = 5
HIDDEN = 1024


@torch.no_grad()
def embed(model, wav, device="cpu"):
    chunk = SAMPLE_RATE * CHUNK_SECONDS
    pooled = []
    for start in range(0, wav.shape[-1], chunk):
        piece = wav[..., start:start + chunk].to(device)
        with torch.autocast(device_type=device, dtype=torch.bfloat16):
            out = model(piece, output_hidden_states=True)
        hidden = out.hidden_states[-1]
        pooled.append(hidden.reshape(-1, HIDDEN).float().mean(0))
    return torch.stack(pooled).mean(0)


def rank_candidates(model, reference_wav, candidates, device="cpu"):
    model.eval()
    reference_embedding = embed(model, reference_wav, device)
    results = []
    for name, wav in candidates:
        candidate_embedding = embed(model, wav, device)
        score = F.cosine_similarity(reference_embedding, candidate_embedding, dim=0)
        results.append((name, score))
    results.sort(key=lambda r: float(r[1]), reverse=True)
    return results
