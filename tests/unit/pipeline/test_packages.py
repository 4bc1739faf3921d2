"""The connectors match the installed Spark and resolve from Maven Central only."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pyspark

from mqkafka.pipeline import packages
from mqkafka.pipeline.session import session_conf


def test_the_connector_version_is_the_installed_spark_version() -> None:
    assert packages.coordinates(pyspark.__version__) == [
        f"org.apache.spark:spark-sql-kafka-0-10_2.13:{pyspark.__version__}",
        f"org.apache.spark:spark-avro_2.13:{pyspark.__version__}",
    ]


def test_ivy_resolves_from_maven_central_alone(tmp_path: Path) -> None:
    settings = ET.parse(packages.write_ivy_settings(tmp_path)).getroot()
    resolvers = list(settings.find("resolvers") or [])
    assert [(r.tag, r.get("root")) for r in resolvers] == [("ibiblio", packages.MAVEN_CENTRAL)]
    assert settings.find("caches").get("defaultCacheDir") == str(tmp_path / "cache")  # type: ignore[union-attr]


def test_spark_submit_gets_the_same_packages(tmp_path: Path) -> None:
    args = packages.submit_arguments("4.0.0", tmp_path)
    assert args[:2] == ["--packages", ",".join(packages.coordinates("4.0.0"))]
    assert f"spark.jars.ivySettings={tmp_path / 'ivysettings.xml'}" in args


def test_every_session_reads_utc_minutes_without_a_ui(tmp_path: Path) -> None:
    conf = session_conf(shuffle_partitions=3, state_store="hdfs", ivy_home=tmp_path)
    assert conf["spark.sql.session.timeZone"] == "UTC"
    assert conf["spark.ui.enabled"] == "false"
    assert conf["spark.sql.shuffle.partitions"] == "3"
    assert conf["spark.sql.streaming.stateStore.providerClass"].endswith(
        "HDFSBackedStateStoreProvider"
    )
    assert conf["spark.jars.packages"] == ",".join(packages.coordinates(pyspark.__version__))
