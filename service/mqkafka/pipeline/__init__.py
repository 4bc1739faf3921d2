"""The data pipeline on Spark: activity aggregates, state snapshots and the HTML report.

Downstream of the broker service, reading only what it writes to Kafka:

- ``stream_job``: ``<ns>mqk-activity`` -> per-minute aggregates by topic, by subscriber queue,
  of failures by reason code, and per-minute totals (Parquet), exactly once via checkpoints.
- ``snapshot_job``: the compacted state topics -> Parquet snapshots at a point in time.
- ``report``: those tables -> an HTML page with PNG charts.

Modules that need Spark import pyspark themselves; ``config``, ``packages``, ``durations``
and ``report_data`` are pure Python, so the CLI and the unit tests load without a JVM.
"""
