import torch


def _scale(x, period):
    return x / (period - 1) - 0.5


def time_features(hours, timeenc=1, freq='h'):
    """
    Time features for an hourly index (hours since the start of the series).

    timeenc == 0: integer calendar fields [month, day, weekday, hour] for the fixed/learned embeddings
    timeenc == 1: the [-0.5, 0.5] encodings (HourOfDay, DayOfWeek, DayOfMonth, DayOfYear) for 'timeF'
    """
    hours = hours.long()
    hour = hours % 24
    day = hours // 24
    weekday = day % 7
    day_of_month = day % 30
    day_of_year = day % 365
    month = (day_of_year // 31).clamp(max=11)
    if timeenc == 0:
        return torch.stack([month, day_of_month, weekday, hour], dim=1).float()
    feats = [
        _scale(hour.float(), 24),
        _scale(weekday.float(), 7),
        _scale(day_of_month.float(), 30),
        _scale(day_of_year.float(), 365),
    ]
    return torch.stack(feats, dim=1).float()
