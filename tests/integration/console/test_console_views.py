"""The web console in a real browser (Debian's headless chromium, driven by Playwright)
against a running broker service on the test Kafka: each view shows what a person looks for,
the live rates move, actions act. Every view is saved as a screenshot."""

from __future__ import annotations

import os
from typing import Any

import pytest
from playwright.sync_api import expect

from mqkafka.client.kafka_pubsub import command_message
from mqkafka.kafka.clientconfig import ClientConfig
from mqkafka.mq.mqmd import MQMD, MQMT
from mqkafka.query.messages import browse
from tests.integration.console.conftest import Stack

pytestmark = pytest.mark.kafka
CONTROL = "SYSTEM.BROKER.CONTROL.QUEUE"


def shot(page: Any, stack: Stack, name: str) -> None:
    page.screenshot(path=str(stack.screenshots / f"{name}.png"), full_page=True)


def ok(result: Any) -> None:
    assert result is not None and result.ok, result


def test_the_topic_tree_counts_subscribers_and_retained_per_node(page: Any, stack: Stack) -> None:
    stack.create_queue("TREE.Q")
    ok(stack.client.register("Sport/#", queue="TREE.Q"))
    ok(stack.client.register("Sport/Soccer/Goals", queue="TREE.Q", sub_name="goals"))
    ok(stack.client.publish("Sport/Soccer/Goals", b'{"scorer": "Kane", "minute": 88}', retain=True))
    ok(stack.client.publish("Sport/Tennis", b"\x00\x01binary\xff", retain=True))
    page.goto("/")
    goals = page.locator('tr[data-topic="Sport/Soccer/Goals"]')
    expect(goals.locator(".subscribers")).to_have_text("1")
    expect(goals.locator(".retained")).to_have_text("1")
    expect(page.locator('tr[data-topic="Sport/#"] .subscribers')).to_have_text("1")
    sport = page.locator('tr[data-topic="Sport"] td')
    expect(sport.nth(3)).to_have_text("2")  # subscribers in the branch
    expect(sport.nth(4)).to_have_text("2")  # retained in the branch
    shot(page, stack, "1-topic-tree")


def test_a_new_subscription_appears_and_the_filter_finds_it(page: Any, stack: Stack) -> None:
    page.goto("/subscriptions")
    before = page.locator("#subscriptions tbody tr").count()
    stack.create_queue("PRICES.Q")
    ok(stack.client.register(
        "Price/Fruit/+", queue="PRICES.Q", sub_name="fruit", filter="price > 2",
        options=["CorrelAsId"], correl_id=bytes.fromhex("0a0b").ljust(24, b"\0"),
    ))  # fmt: skip
    page.reload()
    expect(page.locator("#subscriptions tbody tr")).to_have_count(before + 1)
    page.fill("input[name=q]", "fruit prices.q")
    page.click("form.filter button")
    row = page.locator("#subscriptions tbody tr")
    expect(row).to_have_count(1)
    expect(row.locator("td").nth(0)).to_have_text("Price/Fruit/+")
    expect(row.locator("td").nth(2)).to_contain_text("0a0b" + "00" * 22)  # full CorrelId
    expect(row.locator("td").nth(5)).to_contain_text("CorrelAsId")
    expect(row.locator("td").nth(6)).to_have_text("price > 2")
    expect(row.locator("td").nth(4)).to_have_text("operator")
    shot(page, stack, "2-subscriptions-filtered")
    page.goto("/subscriptions?q=TREE.Q")  # delivered to in the tree's test: a last delivery
    expect(page.locator("#subscriptions tbody tr").first.locator(".when")).to_contain_text("UTC")


def test_retained_bodies_read_as_json_text_or_hex(page: Any, stack: Stack) -> None:
    page.goto("/retained")
    goals = page.locator('section.pub[data-topic="Sport/Soccer/Goals"]')
    expect(goals.locator(".kind")).to_have_text("json")
    expect(goals.locator("pre.body")).to_contain_text('"scorer": "Kane"')
    expect(page.locator('section.pub[data-topic="Sport/Tennis"] .kind')).to_have_text("hex")
    shot(page, stack, "3-retained")
    goals.locator("a", has_text="hex").click()
    expect(page.locator("pre.body")).to_contain_text("00000000  7b 22 73 63")  # {"sc
    expect(page.locator("section.pub")).to_have_count(1)
    shot(page, stack, "3-retained-as-hex")


def test_queues_show_depth_and_the_services_consumers(page: Any, stack: Stack) -> None:
    page.goto("/queues")
    tree = page.locator('tr[data-queue="TREE.Q"]')
    expect(tree.locator(".depth")).to_have_text("3")  # Goals retained + Goals to both subs
    stream = page.locator('tr[data-queue="SYSTEM.BROKER.DEFAULT.STREAM"]')
    expect(stream.locator("td").nth(3)).to_have_text("1")  # the service's one worker
    expect(stream.locator("td").nth(4)).to_contain_text("mqk-broker")
    shot(page, stack, "4-queues")


def test_the_live_rates_move_when_publications_flow(page: Any, stack: Stack) -> None:
    page.goto("/rates")
    figure = page.locator("#rate-publications")
    expect(figure).to_have_text("0.0")  # the service idle: a first rate arrived, nothing flows
    for n in range(20):
        stack.client.publish("Sport/Soccer/Goals", b"goal %d" % n, wait=None if n < 19 else 30)
    # the burst is one interval or two of the chart's line: its highest point is above zero
    page.wait_for_function("Math.max(...window.mqkChart.data.datasets[0].data) > 0")
    page.wait_for_function("Number(document.getElementById('rate-chart').dataset.points) >= 3")
    expect(page.locator("#totals")).to_contain_text("publications (total)")
    shot(page, stack, "5-rates")


def test_a_dead_letter_reads_its_reason_by_name_and_is_re_put(page: Any, stack: Stack) -> None:
    # a request whose reply queue does not exist (the service may not create it): its reply
    # is dead-lettered with MQRC_UNKNOWN_OBJECT_NAME
    md = MQMD(MsgType=MQMT.REQUEST, MsgId=os.urandom(24), ReplyToQ="APP.LATER")
    stack.client.put(CONTROL, *command_message([("Command", "RegSub"), ("Topic", "X/#")], md=md))
    page.goto("/dead-letters")
    row = page.locator("#dead-letters tbody tr", has_text="APP.LATER")
    for _ in range(100):  # the service answers in its own time: look again
        if row.count():
            break
        page.wait_for_timeout(300)
        page.reload()
    expect(row.locator(".reason")).to_contain_text("MQRC_UNKNOWN_OBJECT_NAME")
    row.locator("summary").click()  # the reply inside: its RFH2 folders
    expect(row.locator("summary")).to_contain_text("MQRFH2")
    expect(row.locator("pre.folder").first).to_contain_text("<pscr><Completion>error")
    shot(page, stack, "6-dead-letters")
    # a re-put to a queue that still does not exist fails and keeps the dead letter
    row.locator("button").click()
    expect(page.locator("#failed")).to_contain_text("MQRC_UNKNOWN_OBJECT_NAME")
    expect(page.locator("#dead-letters tbody tr", has_text="APP.LATER")).to_have_count(1)
    stack.create_queue("APP.LATER")
    page.locator("#dead-letters tbody tr", has_text="APP.LATER").locator("button").click()
    expect(page.locator("#notice")).to_contain_text("to APP.LATER")
    expect(page.locator("#dead-letters tbody tr", has_text="APP.LATER")).to_have_count(0)
    shot(page, stack, "6-dead-letters-re-put")
    config = ClientConfig(stack.bootstrap)
    [moved] = browse(config, "APP.LATER", namespace=stack.namespace, wait=10).messages
    assert moved.dead_letter is None and moved.md.get("Format") == "MQHRF2"
    assert "<Command>" not in moved.body.text  # the reply, not the request


def test_workers_show_their_partitions(page: Any, stack: Stack) -> None:
    page.goto("/workers")
    expect(page.locator("#workers tbody tr")).to_have_count(1)
    partitions = page.locator("#workers .partitions")
    expect(partitions).to_contain_text(f"{stack.namespace}SYSTEM.BROKER.CONTROL.QUEUE[0]")
    expect(partitions).to_contain_text(f"{stack.namespace}SYSTEM.BROKER.DEFAULT.STREAM[3]")
    shot(page, stack, "7-workers")


def test_a_subscription_is_deleted_from_the_console_and_forged_posts_are_refused(
    page: Any, stack: Stack
) -> None:
    forged = page.request.post(
        "/actions/delete-subscription", form={"token": "guess", "topic": "Sport/#"}
    )
    assert forged.status == 403
    page.goto("/subscriptions?q=goals")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator("#subscriptions tbody tr button").click()
    expect(page.locator("#notice")).to_contain_text("deleted Sport/Soccer/Goals")
    page.goto("/subscriptions?q=goals")
    expect(page.locator("#subscriptions")).to_have_count(0)
    expect(page.locator("p.empty")).to_contain_text("No subscription matches")
    shot(page, stack, "8-subscription-deleted")
