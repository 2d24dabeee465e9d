"""Statistics computed in Python: the task bootstrap and the judge calibration's intervals."""
