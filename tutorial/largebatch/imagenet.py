"""The lecture's ImageNet time-to-accuracy tables (ResNet-50), and what follows from them.

The two CSV files in ``data/`` hold the lecture's tables as typed from its slides (cells
kept as printed: "29 hours", "Tesla P100 × 8", "75.3 %"). Everything else is computed:

- records (first table): time in seconds, speed-up over He et al.'s 29 hours, number of
  processors, and, *assuming the usual 90 epochs*, steps, time per step and images/s;
- steps (second table): images/s = batch / time per step, steps x time per step (which
  should give the time column back), epochs = steps x batch / ImageNet's training set,
  and the speed-up over 29 hours.

IMAGENET_TRAIN is the size of the ILSVRC-2012 training set, which the slides round to
"1.2M examples"; it is the one number here not taken from the tables.

>>> parse_duration("29 hours"), parse_duration("6.6 mins"), parse_duration("0.255 s")
(104400.0, 396.0, 0.255)
>>> parse_processors("Tesla P100 × 256"), parse_processors("full TPU Pod")
(('Tesla P100', 256), ('full TPU Pod', None))
>>> parse_percent("75.08%")
75.08
"""

import re

from tutorial.data import load_csv_table

RECORDS_CSV = "imagenet_large_batch_records.csv"
STEPS_CSV = "imagenet_large_batch_steps.csv"
IMAGENET_TRAIN = 1_281_167          # ILSVRC-2012 training images
BASELINE_HOURS = 29.0               # He et al. [1], 8 GPUs, batch 256
ASSUMED_EPOCHS = 90                 # Goyal et al.'s schedule; only for the first table
_UNITS = {"s": 1.0, "sec": 1.0, "min": 60.0, "mins": 60.0, "hr": 3600.0, "hour": 3600.0,
          "hours": 3600.0}


def parse_duration(text):
    """Seconds in '29 hours', '1 hr', '30 mins', '0.255 s'."""
    match = re.fullmatch(r"\s*([\d.]+)\s*([a-z]+)\s*", text)
    if not match or match.group(2) not in _UNITS:
        raise ValueError(f"cannot read the duration {text!r}: expected a number and one of "
                         f"{sorted(_UNITS)}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def parse_processors(text):
    """('Tesla P100', 256) from 'Tesla P100 × 256'; count None when the cell gives none."""
    name, sep, count = text.partition("×")
    return (name.strip(), int(count)) if sep else (text.strip(), None)


def parse_percent(text):
    return float(text.replace("%", "").strip())


def records_table(path=None):
    """The first table with its derived columns, one dict per row."""
    rows = []
    for row in load_csv_table(RECORDS_CSV, path):
        seconds = parse_duration(row["time"])
        processor, count = parse_processors(row["processor"])
        batch = int(row["batch_size"])
        constant_batch = not row["batch_size_end"]
        steps = ASSUMED_EPOCHS * IMAGENET_TRAIN / batch if constant_batch else None
        rows.append({
            "work": row["work"], "batch_size": batch,
            "batch_size_end": int(row["batch_size_end"]) if not constant_batch else None,
            "processor": processor, "processors": count, "library": row["library"],
            "time_s": seconds, "accuracy": parse_percent(row["accuracy"]),
            "speedup": BASELINE_HOURS * 3600.0 / seconds,
            "steps_90_epochs": steps,
            "time_per_step_s": seconds / steps if steps else None,
            "images_per_s_90_epochs": ASSUMED_EPOCHS * IMAGENET_TRAIN / seconds,
        })
    return rows


def steps_table(path=None):
    """The second table with its derived columns, one dict per row."""
    rows = []
    for row in load_csv_table(STEPS_CSV, path):
        batch, steps = int(row["batch_size"]), int(row["steps"])
        per_step = parse_duration(row["time_per_step"])
        seconds = parse_duration(row["time"])
        processor, count = parse_processors(row["hardware"])
        rows.append({
            "work": row["work"], "processor": processor, "processors": count,
            "batch_size": batch, "optimizer": row["optimizer"], "steps": steps,
            "time_per_step_s": per_step, "time_s": seconds,
            "accuracy": parse_percent(row["accuracy"]),
            "images_per_s": batch / per_step,
            "steps_times_step_time_s": steps * per_step,
            "epochs": steps * batch / IMAGENET_TRAIN,
            "speedup": BASELINE_HOURS * 3600.0 / seconds,
        })
    return rows
