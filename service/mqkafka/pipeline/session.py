"""The one place a SparkSession is built.

``master`` is set only when given: the CLI passes ``local[*]`` by default, while under
``spark-submit --master ...`` the cluster manager's choice stands and the connectors come from
``--packages`` (``mqk pipeline packages`` prints the arguments). Everything else the jobs need
is configuration that works the same on a laptop and on a cluster.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from mqkafka.pipeline import packages

STATE_STORE_PROVIDERS: Final = {
    "rocksdb": "org.apache.spark.sql.execution.streaming.state.RocksDBStateStoreProvider",
    "hdfs": "org.apache.spark.sql.execution.streaming.state.HDFSBackedStateStoreProvider",
}


def session_conf(
    *,
    shuffle_partitions: int = 4,
    state_store: str = "rocksdb",
    ui: bool = False,
    ivy_home: Path | None = None,
) -> dict[str, str]:
    """The Spark configuration of every pipeline session (pure: unit-tested)."""
    ivy = ivy_home or packages.default_ivy_home()
    return {
        "spark.jars.packages": ",".join(packages.coordinates(packages.installed_spark_version())),
        "spark.jars.ivySettings": str(packages.write_ivy_settings(ivy)),
        "spark.jars.ivy": str(ivy),
        # minutes are minutes of UTC, whatever the machine's zone
        "spark.sql.session.timeZone": "UTC",
        "spark.sql.shuffle.partitions": str(shuffle_partitions),
        # RocksDB keeps per-publication state off the JVM heap (see stream_job)
        "spark.sql.streaming.stateStore.providerClass": STATE_STORE_PROVIDERS[state_store],
        "spark.ui.enabled": "true" if ui else "false",
        "spark.ui.showConsoleProgress": "false",
    }


def build_session(
    app_name: str,
    *,
    master: str | None = None,
    shuffle_partitions: int = 4,
    state_store: str = "rocksdb",
    ui: bool = False,
    extra: Mapping[str, str] | None = None,
) -> Any:
    """A SparkSession with the Kafka and Avro connectors of the installed Spark version."""
    from pyspark.sql import SparkSession

    builder = SparkSession.builder.appName(app_name)
    if master:
        builder = builder.master(master)
    conf = session_conf(shuffle_partitions=shuffle_partitions, state_store=state_store, ui=ui)
    for key, value in {**conf, **(extra or {})}.items():
        builder = builder.config(key, value)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


def spark_errors() -> tuple[type[BaseException], ...]:
    """What a failing Spark job raises in the driver (the pipeline's package owns pyspark)."""
    from py4j.protocol import Py4JError  # type: ignore[import-untyped]
    from pyspark.errors import PySparkException

    return (Py4JError, PySparkException)
