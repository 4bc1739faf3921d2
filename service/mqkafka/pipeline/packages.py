"""The Spark connectors the pipeline needs, resolved from Maven Central at session start.

Spark's Kafka source and spark-avro are separate artifacts that must match the running Spark
exactly (they use Spark internals), so their version is the installed pyspark's version and
never a pinned constant. Resolution goes through an Ivy settings file that names Maven Central
alone: a developer's ``~/.m2`` (which may hold POMs without their jars) or the spark-packages
repository (unreachable from many networks) then cannot break a fresh machine's first run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final
from xml.sax.saxutils import quoteattr

MAVEN_CENTRAL: Final = "https://repo1.maven.org/maven2/"
SCALA_BINARY: Final = "2.13"  # Spark 4 is built for Scala 2.13 only
ARTIFACTS: Final = ("spark-sql-kafka-0-10", "spark-avro")


def installed_spark_version() -> str:
    import pyspark

    return str(pyspark.__version__)


def coordinates(spark_version: str) -> list[str]:
    """``group:artifact:version`` of every connector, for ``spark.jars.packages``."""
    return [f"org.apache.spark:{a}_{SCALA_BINARY}:{spark_version}" for a in ARTIFACTS]


def default_ivy_home() -> Path:
    """Where resolved jars are cached: ``$MQK_SPARK_IVY`` or ``~/.cache/mqkafka/ivy``."""
    configured = os.environ.get("MQK_SPARK_IVY")
    return Path(configured) if configured else Path.home() / ".cache" / "mqkafka" / "ivy"


def ivy_settings(cache_dir: Path, repository: str = MAVEN_CENTRAL) -> str:
    """An Ivy settings document that resolves from ``repository`` only, caching in
    ``cache_dir``."""
    return (
        "<ivysettings>\n"
        '  <settings defaultResolver="central"/>\n'
        f"  <caches defaultCacheDir={quoteattr(str(cache_dir))}/>\n"
        "  <resolvers>\n"
        f'    <ibiblio name="central" m2compatible="true" root={quoteattr(repository)}/>\n'
        "  </resolvers>\n"
        "</ivysettings>\n"
    )


def write_ivy_settings(ivy_home: Path, repository: str = MAVEN_CENTRAL) -> Path:
    """Write the settings file under ``ivy_home`` (only when it changed) and return its path."""
    ivy_home.mkdir(parents=True, exist_ok=True)
    path = ivy_home / "ivysettings.xml"
    text = ivy_settings(ivy_home / "cache", repository)
    if not path.exists() or path.read_text() != text:
        path.write_text(text)
    return path


def submit_arguments(spark_version: str, ivy_home: Path) -> list[str]:
    """The ``spark-submit`` arguments that bring the same connectors to a cluster job."""
    settings = write_ivy_settings(ivy_home)
    return [
        "--packages",
        ",".join(coordinates(spark_version)),
        "--conf",
        f"spark.jars.ivySettings={settings}",
        "--conf",
        f"spark.jars.ivy={ivy_home}",
    ]
