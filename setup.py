"""The compiled part of mqkafka (everything else is in pyproject.toml): activity's block writer,
``mqkafka.activity._blocks``. Optional: where it cannot be built (no C compiler) the package
installs without it and ``mqkafka.activity.blocks`` uses its Python twin, which costs a worker
more CPU per publication (issue 34 point 4)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "mqkafka.activity._blocks",
            ["service/mqkafka/activity/_blocks.c"],
            optional=True,
        )
    ]
)
