"""Pub/sub from the client: command messages and replies on real Kafka topics, then the same
calls end to end against the real broker service (``mqk serve``)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable

import pytest
from confluent_kafka import Consumer, Producer

import mqkafka.mqi as pymqi
from mqkafka.engine.effects import Reply
from mqkafka.mq.commands import CONTROL_QUEUE, Interface, PubOpt, RegOpt, RegSub
from mqkafka.mq.mqmd import MQFMT_RF_HEADER_2, MQMD, MQMT
from mqkafka.mq.reasons import RC
from mqkafka.mq.responses import Completion, Response, ResponseItem
from mqkafka.mqi import CMQC as C
from mqkafka.mqi import GMO, MD, SD, MQMIError
from mqkafka.mqi.kafkaqm.pubsub import PubSub, Subscription, raise_for
from mqkafka.mqi.kafkaqm.queue import Queue
from mqkafka.mqi.kafkaqm.queuemanager import QueueManager
from mqkafka.mqi.kafkaqm.topic import Topic
from mqkafka.wire.headers import mqmd_from_headers, mqmd_to_headers
from mqkafka.wire.messagecodec import decode_command, encode_reply
from tests.integration.mqi.props import (
    EXPECTED,
    got_properties,
    raw_record,
    usr_of,
    wait_gmo,
    with_properties,
)

pytestmark = pytest.mark.kafka

WAIT = GMO(Options=C.MQGMO_WAIT, WaitInterval=20000)


def last_record(
    bootstrap: str, topic: str, msg_id: bytes, timeout: float = 30
) -> tuple[MQMD, bytes]:
    """The record with ``msg_id`` on ``topic``, read as any Kafka consumer would."""
    config = {"bootstrap.servers": bootstrap, "group.id": uuid.uuid4().hex}
    consumer = Consumer({**config, "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            record = consumer.poll(0.5)
            if record is None or record.error() is not None:
                continue
            md, _ = mqmd_from_headers(record.headers())
            if md.MsgId == msg_id:
                return md, record.value()
    finally:
        consumer.close()
    raise AssertionError(f"no record {msg_id!r} on {topic}")


# ---- without the service: the wire -----------------------------------------------------


def test_a_regsub_is_what_the_service_reads(qmgr: QueueManager, kafka_bootstrap: str) -> None:
    pubsub = PubSub(qmgr)
    correl = b"S" * 24
    md = pubsub.command_md(reply=True, correl_id=correl)
    command = RegSub(
        topics=("Sport/Soccer/#",), options=RegOpt.CORREL_ID_AS_IDENTITY, md=md,
        q_name=md.ReplyToQ, sub_name="soccer",
    )  # fmt: skip
    pubsub.send(command)
    topic = qmgr.connection.settings.topic_of(CONTROL_QUEUE)
    stored, value = last_record(kafka_bootstrap, topic, md.MsgId)
    assert (stored.MsgType, stored.Format, stored.CorrelId) == (
        MQMT.REQUEST,
        MQFMT_RF_HEADER_2,
        correl,
    )
    assert stored.ReplyToQ == pubsub.reply_queue.name
    read = decode_command(value, stored, CONTROL_QUEUE, local_qmgr="QM1")
    assert isinstance(read, RegSub)
    assert (read.topics, read.options, read.sub_name) == (command.topics, command.options, "soccer")
    assert read.q_name == pubsub.reply_queue.name
    pubsub.close()


def test_a_reply_on_the_reply_queue_is_read_by_correl_id(
    qmgr: QueueManager, kafka_bootstrap: str
) -> None:
    pubsub = PubSub(qmgr, timeout=20)
    md = pubsub.command_md(reply=True)
    command = RegSub(topics=("a/b",), md=md, q_name=md.ReplyToQ)
    # the reply the service would write (wire.messagecodec.encode_reply), on the reply queue
    reply_md = MQMD(MsgType=MQMT.REPLY, Format=MQFMT_RF_HEADER_2, CorrelId=md.MsgId)
    error = Response.error(ResponseItem(RC.CF_NO_RETAINED_MSG))
    out_md, value = encode_reply(Reply(md.ReplyToQ, "QM1", reply_md, error, Interface.RFH2, ()))
    producer = Producer({"bootstrap.servers": kafka_bootstrap})
    producer.produce(
        qmgr.connection.settings.topic_of(md.ReplyToQ), value, headers=mqmd_to_headers(out_md)
    )
    producer.flush(10)
    reply = pubsub.reply_to(command)
    assert (reply.completion, reply.reason) == (Completion.ERROR, RC.CF_NO_RETAINED_MSG)
    with pytest.raises(MQMIError) as raised:
        raise_for(reply)
    assert (raised.value.comp, raised.value.reason) == (C.MQCC_FAILED, RC.CF_NO_RETAINED_MSG)
    pubsub.close()


def test_no_reply_means_the_pubsub_engine_is_not_running(qmgr: QueueManager) -> None:
    pubsub = PubSub(qmgr, timeout=1)
    md = pubsub.command_md(reply=True)
    with pytest.raises(MQMIError) as raised:
        pubsub.reply_to(RegSub(topics=("x",), md=md, q_name=md.ReplyToQ))
    assert raised.value.reason == RC.PUBSUB_INHIBITED
    pubsub.close()


# ---- end to end with mqk serve ---------------------------------------------------------


@pytest.fixture
def served(
    broker_service: str, connect: Callable[..., QueueManager]
) -> Callable[..., QueueManager]:
    return connect


def test_mqsub_managed_and_a_topic_publication(served: Callable[..., QueueManager]) -> None:
    """MQSUB (managed, non-durable) is a RegSub the service keeps; MQPUT to a topic is a
    Publish; the publication arrives with the subscription's CorrelId; MQCLOSE deregisters."""
    subscriber, publisher = served(), served()
    sd = SD(
        Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE, ObjectString=b"Sport/Soccer/#"
    )
    subscription = Subscription(subscriber)
    queue = subscription.sub(sub_desc=sd).get_sub_queue()
    assert queue is not None and any(sd.SubCorrelId)
    Topic(publisher, topic_string="Sport/Soccer/Results").pub(
        b"Chelsea 4 Sutton 1", MD(Format=C.MQFMT_STRING)
    )
    Topic(publisher, topic_string="Sport/Tennis/Results").pub(b"not for soccer")
    md = MD()
    # the queue holds the queued interface's MQRFH2 (<psc>): MQGMO_PROPERTIES_FORCE_MQRFH2
    # shows it; without it an MQSUB subscriber gets the data alone (test_mqi_properties)
    force = GMO(Options=C.MQGMO_WAIT | C.MQGMO_PROPERTIES_FORCE_MQRFH2, WaitInterval=20000)
    body = queue.get(None, md, force)
    assert body.endswith(b"Chelsea 4 Sutton 1") and b"<Topic>Sport/Soccer/Results</Topic>" in body
    assert md.CorrelId == sd.SubCorrelId and md.Format == C.MQFMT_RF_HEADER_2
    with pytest.raises(MQMIError):
        queue.get(None, MD(), GMO(Options=C.MQGMO_WAIT, WaitInterval=1500))  # tennis is not ours
    name = queue.name
    subscription.close()  # DeregSub, and the managed queue goes
    assert subscriber.display_queue(name) is None
    reply = PubSub(subscriber).deregister_subscriber(["Sport/Soccer/#"], queue=name)
    assert reply is not None and reply.reason == RC.CF_NOT_REGISTERED  # it was deregistered


def test_two_identities_on_one_queue_each_get_their_own_publications(
    served: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """Seed 001 end to end: "A single publisher or subscriber queue can therefore support
    multiple identities, each with a specific correlation identifier value" ... "The
    recipient can then use MQGET with the CorrelId to retrieve the messages." """
    app = served()
    shared = new_queue()
    pubsub = PubSub(app)
    results, events = b"R" * 24, b"E" * 24
    for topic, correl in (("Sport/Soccer/State/#", results), ("Sport/Soccer/Event/#", events)):
        reply = pubsub.register_subscriber(
            [topic], queue=shared, options=RegOpt.CORREL_ID_AS_IDENTITY, correl_id=correl
        )
        raise_for(reply)
    for i in range(3):
        pubsub.publish(["Sport/Soccer/Event/Goal"], b"goal %d" % i)
        pubsub.publish(["Sport/Soccer/State/LatestScore"], b"score %d" % i)
    queue = Queue(app, shared, C.MQOO_INPUT_SHARED)
    by_correl = GMO(Version=2, MatchOptions=C.MQMO_MATCH_CORREL_ID, Options=C.MQGMO_WAIT)
    by_correl.WaitInterval = 20000
    scores = [queue.get(None, MD(CorrelId=results), by_correl)[-7:] for _ in range(3)]
    goals = [queue.get(None, MD(CorrelId=events), by_correl)[-6:] for _ in range(3)]
    assert sorted(scores) == [b"score 0", b"score 1", b"score 2"]
    assert sorted(goals) == [b"goal 0", b"goal 1", b"goal 2"]
    pubsub.close()


def test_request_update_with_and_without_retained_publications(
    served: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """Seed 000: "If the queue manager has no matching retained publications, the request
    fails with return code MQRCCF_NO_RETAINED_MSG." - and sends them when it has."""
    app = served()
    subscriber_q = new_queue()
    pubsub = PubSub(app)
    topic = f"Scores/{uuid.uuid4().hex[:6]}"
    raise_for(
        pubsub.register_subscriber(
            [topic], queue=subscriber_q, options=RegOpt.PUBLISH_ON_REQUEST_ONLY
        )
    )
    reply = pubsub.request_update(topic, queue=subscriber_q)
    assert (reply.comp, reply.reason) == (C.MQCC_FAILED, RC.CF_NO_RETAINED_MSG)
    pubsub.publish([topic], b"1-0", options=PubOpt.RETAIN_PUBLICATION, reply=True)
    assert pubsub.request_update(topic, queue=subscriber_q).completion is Completion.OK
    body = Queue(app, subscriber_q, C.MQOO_INPUT_SHARED).get(None, MD(), WAIT)
    assert body.endswith(b"1-0")
    pubsub.close()


def test_a_temporary_dynamic_subscriber_queue_takes_its_subscriptions_with_it(
    served: Callable[..., QueueManager], kafka_bootstrap: str, namespace: str
) -> None:
    """Reference §9.6 (choice §10.3): "a subscription whose subscriber queue is a temp-dyn
    queue is deregistered when the queue is closed" - and nothing is written to it after."""
    from confluent_kafka.admin import AdminClient

    from mqkafka.mqi import OD
    from mqkafka.wire.names import queue_to_topic

    app = served()
    od = OD(ObjectName=b"SYSTEM.DEFAULT.MODEL.QUEUE", DynamicQName=b"TSUB.*")
    temporary = Queue(app, od, C.MQOO_INPUT_EXCLUSIVE)
    name = od.ObjectName.decode().strip()
    pubsub = PubSub(app)
    topic = f"Temp/{uuid.uuid4().hex[:6]}"
    raise_for(pubsub.register_subscriber([topic], queue=name))
    temporary.close()  # deletes the queue: the service reads that from the catalogue
    time.sleep(1.0)  # the service's copy of the catalogue follows within ~50 ms
    pubsub.publish([topic], b"after the close", reply=True)
    reply = pubsub.deregister_subscriber([topic], queue=name)
    assert reply is not None and reply.reason == RC.CF_NOT_REGISTERED  # it went with its queue
    topics = AdminClient({"bootstrap.servers": kafka_bootstrap}).list_topics(timeout=10).topics
    assert queue_to_topic(name, namespace) not in topics  # no copy brought the queue back
    pubsub.close()


def test_mqsub_create_of_a_durable_name_that_exists_is_2432_and_resume_finds_it(
    served: Callable[..., QueueManager],
) -> None:
    """MQSUB with MQSO_CREATE and a SubName that is taken fails with
    MQRC_SUB_ALREADY_EXISTS (a RegSub would re-point the name); MQSO_RESUME finds it."""
    app = served()
    name = f"DURABLE.{uuid.uuid4().hex[:8]}".encode()
    options = C.MQSO_CREATE | C.MQSO_DURABLE | C.MQSO_MANAGED
    first = Subscription(app)
    queue = first.sub(sub_desc=SD(Options=options, ObjectString=b"News/#", SubName=name)).sub_queue
    with pytest.raises(MQMIError) as again:
        Subscription(app).sub(sub_desc=SD(Options=options, ObjectString=b"News/#", SubName=name))
    assert again.value.reason == RC.SUB_ALREADY_EXISTS
    resumed = Subscription(app).sub(sub_desc=SD(Options=C.MQSO_RESUME, SubName=name)).sub_queue
    assert resumed is not None and queue is not None and resumed.name == queue.name
    first.close(C.MQCO_REMOVE_SUB)


def test_mqsub_create_and_resume_of_a_durable_managed_name_resumes_it_with_its_queue(
    served: Callable[..., QueueManager],
) -> None:
    """MQSO_CREATE + MQSO_RESUME (IBM's basicsubscribe) makes the subscription once, then
    resumes it: the same managed queue, holding what was published while nobody read (a new
    managed queue each time orphaned those publications)."""
    app, publisher = served(), served()
    name, topic = f"RESUMED.{uuid.uuid4().hex[:8]}", f"Resumed/{uuid.uuid4().hex[:8]}"
    options = C.MQSO_CREATE | C.MQSO_RESUME | C.MQSO_DURABLE | C.MQSO_MANAGED
    queues = []
    for _ in range(2):
        sd = SD(Options=options)
        sd.set_vs("SubName", name)
        sd.set_vs("ObjectString", topic)
        subscription = Subscription(app).sub(sub_desc=sd)
        assert subscription.sub_queue is not None
        queues.append(subscription.sub_queue.name)
        if len(queues) == 1:
            subscription.close(sub_close_options=C.MQCO_KEEP_SUB, close_sub_queue=True)
            Topic(publisher, topic_string=topic).pub(b"while nobody read")
    assert queues[0] == queues[1]
    got = subscription.get(None, MD(), GMO(Options=C.MQGMO_WAIT, WaitInterval=30000))
    assert got == b"while nobody read"
    subscription.close(C.MQCO_REMOVE_SUB)


def test_a_publications_properties_reach_mqsub_as_properties_and_regsub_in_usr(
    served: Callable[..., QueueManager],
    new_queue: Callable[..., str],
    kafka_bootstrap: str,
) -> None:
    """Issue 23: the publisher's message properties, as an MQSUB subscriber (message
    properties, the data alone), a RegSub subscriber (MQRFH2 <usr>) and Kafka see them."""
    subscriber, publisher = served(), served()
    topic_string = f"Props/{uuid.uuid4().hex[:8]}"
    sd = pymqi.SD(Options=C.MQSO_CREATE | C.MQSO_MANAGED | C.MQSO_NON_DURABLE)
    sd.set_vs("ObjectString", topic_string)
    subscription = pymqi.Subscription(subscriber)
    subscription.sub(sub_desc=sd)
    regsub_queue = new_queue()  # a queued-interface subscriber's own queue
    reply = PubSub(subscriber).register_subscriber([topic_string], queue=regsub_queue)
    assert reply is not None and reply.reason == 0

    topic = pymqi.Topic(publisher, topic_string=topic_string)
    pmo = pymqi.PMO(OriginalMsgHandle=with_properties(publisher).msg_handle)
    for number in range(2):
        topic.pub(b"price %d" % number, pymqi.MD(Format=C.MQFMT_STRING), pmo)

    # MQSUB: the publication's data alone, its properties as message properties
    handle = pymqi.MessageHandle(subscriber)
    md = pymqi.MD()
    data = subscription.get(None, md, wait_gmo(0, handle.msg_handle))
    assert data == b"price 0" and md.Format == C.MQFMT_STRING
    assert got_properties(handle) == EXPECTED
    # ... and with MQGMO_PROPERTIES_FORCE_MQRFH2 the queued interface's MQRFH2
    found: list[pymqi.RFH2] = []
    force = wait_gmo(C.MQGMO_PROPERTIES_FORCE_MQRFH2)
    assert subscription.get_rfh2(None, pymqi.MD(), force, found) == b"price 1"
    assert b"<Command>Publish</Command>" in bytes(found[0]["psc"])
    assert b'<urgent dt="boolean">true</urgent>' in usr_of(found)

    # RegSub: the MQRFH2 with <psc> and the properties in <usr>, as RFH2 readers expect
    queue = pymqi.Queue(subscriber, regsub_queue, C.MQOO_INPUT_SHARED)
    found = []
    assert queue.get_rfh2(None, pymqi.MD(), wait_gmo(), found) == b"price 0"
    assert b'<ratio dt="r8">0.25</ratio>' in usr_of(found)
    # a raw Kafka consumer of that queue sees the same properties in the headers
    record = raw_record(kafka_bootstrap, subscriber.connection.settings.topic_of(regsub_queue))
    assert dict(record.headers())["mqprop.count"] == b"42"
    PubSub(subscriber).deregister_subscriber([topic_string], queue=regsub_queue)
    queue.close()
    subscription.close()


# pymqi's test_pubsub_api_managed_non_durable_rfh2 (and test_rfh2_put_get's headers): the
# publisher's own MQRFH2 before its data, the first one a queued-interface RegSub command.
PYMQI_FOLDERS = (
    b"<psc><Command>RegSub</Command><Topic>$topictree/topiccat/topic</Topic>"
    b"<QMgrName>DebugQM</QMgrName><QName>PUBOUT</QName><RegOpt>PersAsPub</RegOpt></psc>",
    b"<testFolder><testVar>testValue</testVar></testFolder>",
    b"<mcd><Msd>xmlnsc</Msd></mcd>",
)


def pymqi_rfh2(fmt: bytes, folders: tuple[bytes, ...] = PYMQI_FOLDERS) -> pymqi.RFH2:
    header = pymqi.RFH2(
        StrucId=C.MQRFH_STRUC_ID, Version=C.MQRFH_VERSION_2, StrucLength=188, Encoding=273,
        CodedCharSetId=1208, Format=fmt, Flags=0, NameValueCCSID=1208,
    )  # fmt: skip
    for folder in folders:
        header.add_folder(folder)
    return header


def rfh2_md() -> pymqi.MD:
    return pymqi.md(Format=C.MQFMT_RF_HEADER_2, Encoding=273, CodedCharSetId=1208)


def managed_non_durable(qmgr: QueueManager, topic_string: str) -> pymqi.Subscription:
    sd = pymqi.SD()
    sd["Options"] = C.MQSO_CREATE + C.MQSO_MANAGED
    sd.set_vs("SubName", f"{topic_string} Subscription")
    sd.set_vs("ObjectString", topic_string)
    sub = pymqi.Subscription(qmgr)
    sub.sub(sub_desc=sd)
    return sub


def test_a_publication_whose_data_starts_with_the_publishers_mqrfh2_reaches_mqsub(
    served: Callable[..., QueueManager],
) -> None:
    """pymqi's test_pubsub_api_managed_non_durable_rfh2 as it runs: ``Topic.pub_rfh2`` with
    an MQMD of Encoding 273 (its RFH2 packed big-endian) was lost (2033): the command's
    header said the native Encoding, so the service could not read the chain. MQ gives the
    subscriber the publisher's data: its MQRFH2, then the message."""
    qmgr = served()
    topic_string = f"/UNITTEST/{uuid.uuid4().hex[:6]}/PUBSUB/API_RFH2/MANAGED/NON DURABLE"
    msg = f'Hello World in the topic string "{topic_string}"'.encode()
    sub = managed_non_durable(qmgr, topic_string)
    put_rfh2 = pymqi_rfh2(C.MQFMT_STRING)
    with pymqi.Topic(qmgr, topic_string=topic_string) as topic:
        topic.open(open_opts=C.MQOO_OUTPUT)
        topic.pub_rfh2(msg, rfh2_md(), pymqi.pmo(), [put_rfh2])
    get_opts = pymqi.GMO(
        Version=C.MQGMO_VERSION_4,
        WaitInterval=15000,
        Options=C.MQGMO_NO_SYNCPOINT + C.MQGMO_FAIL_IF_QUIESCING + C.MQGMO_WAIT,
    )
    found: list[pymqi.RFH2] = []
    md = pymqi.md(Version=C.MQMD_VERSION_2)
    data = sub.get_rfh2(None, md, get_opts, found)
    sub.close(sub_close_options=0, close_sub_queue=True)
    assert data == msg
    assert md.Format == C.MQFMT_RF_HEADER_2 and md.Encoding == 273
    assert [header.get() for header in found] == [put_rfh2.get()]


def test_a_chain_of_publisher_headers_and_a_put_of_mqhrf2_data_reach_both_interfaces(
    served: Callable[..., QueueManager], new_queue: Callable[..., str]
) -> None:
    """Two chained MQRFH2s by ``pub_rfh2`` (as test_rfh2_put_get chains them), and the same
    bytes by a plain ``pub`` with Format MQHRF2: an MQSUB subscriber's ``get_rfh2`` takes
    both headers apart; a RegSub subscriber gets them after the queued interface's own."""
    subscriber, publisher = served(), served()
    topic_string = f"Rfh2/{uuid.uuid4().hex[:8]}"
    sub = managed_non_durable(subscriber, topic_string)
    regsub_queue = new_queue()
    reply = PubSub(subscriber).register_subscriber([topic_string], queue=regsub_queue)
    assert reply is not None and reply.reason == 0
    first, second = pymqi_rfh2(C.MQFMT_RF_HEADER_2, PYMQI_FOLDERS[:2]), pymqi_rfh2(C.MQFMT_STRING)
    body = b"<testData><testVar>testValue</testVar></testData>"
    topic = pymqi.Topic(publisher, topic_string=topic_string)
    topic.pub_rfh2(body, rfh2_md(), pymqi.pmo(), [first, second])
    topic.pub(first.pack(273) + second.pack(273) + b"again", rfh2_md())
    topic.close()

    for expected in (body, b"again"):
        found: list[pymqi.RFH2] = []
        assert sub.get_rfh2(None, pymqi.MD(), wait_gmo(), found) == expected
        assert [header.get() for header in found] == [first.get(), second.get()]
    queue = pymqi.Queue(subscriber, regsub_queue, C.MQOO_INPUT_SHARED)
    found = []
    assert queue.get_rfh2(None, pymqi.MD(), wait_gmo(), found) == body
    assert len(found) == 3 and b"<Command>Publish</Command>" in bytes(found[0]["psc"])
    assert [header.get() for header in found[1:]] == [first.get(), second.get()]
    PubSub(subscriber).deregister_subscriber([topic_string], queue=regsub_queue)
    queue.close()
    sub.close()


def managed_queues(qmgr: QueueManager) -> set[str]:
    """The managed subscriptions' queues the catalogue holds (PCF, generic name)."""
    args = {C.MQCA_Q_NAME: b"MQK.MANAGED.*", C.MQIA_Q_TYPE: C.MQQT_LOCAL}
    try:
        rows = pymqi.PCFExecute(qmgr).MQCMD_INQUIRE_Q(args)
    except MQMIError:
        return set()
    return {row[C.MQCA_Q_NAME].decode().strip() for row in rows}


def test_mqso_alter_of_a_durable_managed_subscription_keeps_its_managed_queue(
    served: Callable[..., QueueManager],
) -> None:
    """MQSUB with MQSO_ALTER of a managed subscription goes on using its managed queue (as in
    MQ): what was published before the alteration is still there to get, the same CorrelId
    marks it, and no second managed queue is left behind; altering it to a queue of the
    program's is MQRC_DEST_CLASS_NOT_ALTERABLE (its managed queue would be orphaned)."""
    app, publisher = served(), served()
    name, topic = f"ALTERED.{uuid.uuid4().hex[:8]}", f"Altered/{uuid.uuid4().hex[:8]}"
    managed = C.MQSO_DURABLE | C.MQSO_MANAGED
    first = Subscription(app).sub(
        sub_desc=SD(
            Options=C.MQSO_CREATE | managed, SubName=name.encode(), ObjectString=topic.encode()
        )
    )
    assert first.sub_queue is not None and first.sub_desc is not None
    queue, correl = first.sub_queue.name, first.sub_desc.SubCorrelId
    first.close(sub_close_options=C.MQCO_KEEP_SUB, close_sub_queue=True)
    Topic(publisher, topic_string=topic).pub(b"before the alteration")
    before = managed_queues(app)
    assert queue in before
    sd = SD(Options=C.MQSO_ALTER | managed, SubName=name.encode(), ObjectString=topic.encode())
    sd.SubUserData = b"altered"
    altered = Subscription(app).sub(sub_desc=sd)
    assert altered.sub_queue is not None and altered.sub_queue.name == queue
    assert sd.SubCorrelId == correl
    assert managed_queues(app) - before == set()  # no new managed queue, none orphaned
    provided = Queue(app, "SYSTEM.DEFAULT.LOCAL.QUEUE", C.MQOO_INPUT_AS_Q_DEF)
    unmanaged = SD(Options=C.MQSO_ALTER | C.MQSO_DURABLE, SubName=name.encode())
    unmanaged.ObjectString = topic.encode()
    with pytest.raises(MQMIError) as raised:  # MQSO_MANAGED cannot be altered away
        Subscription(app).sub(sub_desc=unmanaged, sub_queue=provided)
    assert raised.value.reason == RC.DEST_CLASS_NOT_ALTERABLE
    Topic(publisher, topic_string=topic).pub(b"after the alteration")
    md = MD()
    assert altered.get(None, md, WAIT) == b"before the alteration"
    assert altered.get(None, MD(), WAIT) == b"after the alteration"
    assert md.CorrelId == correl
    altered.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)


@pytest.mark.parametrize("create", [False, True], ids=["alter alone", "alter and create"])
def test_mqso_alter_of_a_name_nobody_holds_needs_mqso_create(
    served: Callable[..., QueueManager], create: bool
) -> None:
    """MQSO_ALTER of a subscription that does not exist is MQRC_NO_SUBSCRIPTION (2428), as in
    MQ; with MQSO_CREATE too, the subscription is made."""
    app = served()
    name, topic = f"NOBODY.{uuid.uuid4().hex[:8]}", f"Nobody/{uuid.uuid4().hex[:8]}"
    options = C.MQSO_ALTER | C.MQSO_DURABLE | C.MQSO_MANAGED | (C.MQSO_CREATE if create else 0)
    sd = SD(Options=options, SubName=name.encode(), ObjectString=topic.encode())
    if not create:
        with pytest.raises(MQMIError) as raised:
            Subscription(app).sub(sub_desc=sd)
        assert raised.value.reason == RC.NO_SUBSCRIPTION
        return
    made = Subscription(app).sub(sub_desc=sd)
    assert made.sub_queue is not None
    made.close(C.MQCO_REMOVE_SUB, close_sub_queue=True)
