"""spark-submit entry: the report: the tables -> an HTML page with PNG charts.

    spark-submit --master spark://HOST:7077 $(mqk pipeline packages) pipeline/report.py --help

Thin on purpose: the job is mqkafka.pipeline; the arguments are those of
'mqk pipeline report' / 'mqk report', except --master, which is spark-submit's.
"""

import sys

from mqkafka.cli.pipeline import submit_main

if __name__ == "__main__":
    sys.exit(submit_main("report", sys.argv[1:]))
