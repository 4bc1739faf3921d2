# The broker service image of docker-compose.yml. Kafka runs in its own apache/kafka container,
# so no JDK here. Built in two stages: the wheel is built from the source, and only the wheel
# is installed in the image (what `pip install` of a release gives a user).
FROM python:3.11-slim AS build
# a C compiler for the wheel's one compiled part (mqkafka.activity._blocks, setup.py); the
# installed image needs none
RUN apt-get update && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN pip install --no-cache-dir build==1.2.2 && python -m build --wheel --outdir /wheels

FROM python:3.11-slim
# install: the wheel and its dependencies, then its console extra (`mqk console`; the second
# install adds only the extra's dependencies, as the wheel is installed); nothing else
# (tests/integration/deploy runs this step)
COPY --from=build /wheels /wheels
RUN pip install --no-cache-dir /wheels/*.whl && pip install --no-cache-dir --find-links /wheels "mqkafka[console]" && rm -rf /wheels
RUN useradd --system --uid 10001 --home-dir /var/lib/mqkafka --create-home mqk
USER mqk
# the listener's status folder, made here so that the named volume compose mounts on it (the
# listener and the console share it) starts out owned by mqk, not by root
RUN mkdir /var/lib/mqkafka/listen
ENV MQK_HOME=/var/lib/mqkafka \
    MQK_METRICS_HOST=0.0.0.0 \
    MQK_METRICS_PORT=9464
VOLUME /var/lib/mqkafka
EXPOSE 9464 9480
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["mqk", "health"]
ENTRYPOINT ["mqk"]
CMD ["serve"]
