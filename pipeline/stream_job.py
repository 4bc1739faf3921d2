"""spark-submit entry: the streaming job: <ns>mqk-activity -> per-minute Parquet tables.

    spark-submit --master spark://HOST:7077 $(mqk pipeline packages) pipeline/stream_job.py --help

Thin on purpose: the job is mqkafka.pipeline; the arguments are those of
'mqk pipeline run' / 'mqk report', except --master, which is spark-submit's.
"""

import sys

from mqkafka.cli.pipeline import submit_main

if __name__ == "__main__":
    sys.exit(submit_main("run", sys.argv[1:]))
