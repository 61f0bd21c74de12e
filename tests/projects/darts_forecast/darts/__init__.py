from darts.timeseries import TimeSeries  # noqa: F401
