# The broker service image used by docker-compose.yml (no JDK needed: Kafka runs in its own
# apache/kafka container).
FROM python:3.11-slim
WORKDIR /opt/mqkafka
COPY pyproject.toml README.md ./
COPY service ./service
COPY topics ./topics
COPY schemas ./schemas
RUN pip install --no-cache-dir .
ENV MQK_TOPICS=/opt/mqkafka/topics/catalogue.toml \
    MQK_HOME=/var/lib/mqkafka
VOLUME /var/lib/mqkafka
ENTRYPOINT ["mqk"]
