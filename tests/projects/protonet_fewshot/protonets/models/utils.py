def euclidean_dist(x, y):
    # x: N x D, y: M x D
    n, m, d = x.size(0), y.size(0), x.size(1)
    assert d == y.size(1)
    x = x.unsqueeze(1).expand(n, m, d)
    y = y.unsqueeze(0).expand(n, m, d)
    return (x - y).pow(2).sum(2)
