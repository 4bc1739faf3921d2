"""spark-submit entry: the snapshot job: the compacted state topics -> Parquet snapshots.

    spark-submit --master spark://HOST:7077 $(mqk pipeline packages) pipeline/snapshot_job.py --help

Thin on purpose: the job is mqkafka.pipeline; the arguments are those of
'mqk pipeline snapshot' / 'mqk report', except --master, which is spark-submit's.
"""

import sys

from mqkafka.cli.pipeline import submit_main

if __name__ == "__main__":
    sys.exit(submit_main("snapshot", sys.argv[1:]))
