"""Message start events of deployed processes: `publish_message` starts an instance there."""

from __future__ import annotations

from pathlib import Path

from tests.worker.conftest import bpmn_file, completions, flow

MESSAGES = '<message id="M_order" name="order-placed"/><message id="M_pay" name="payment"/>'
ORDER = (
    '<startEvent id="placed"><messageEventDefinition messageRef="M_order"/></startEvent>'
    f"{flow('placed', 'pay')}"
    '<intermediateCatchEvent id="pay"><messageEventDefinition messageRef="M_pay"/>'
    f'</intermediateCatchEvent>{flow("pay", "e")}<endEvent id="e"/>'
)


def test_deploy_records_the_message_start(tmp_path: Path, engines) -> None:
    path = bpmn_file(tmp_path / "order.bpmn", ORDER, process="order", extra=MESSAGES)
    engine = engines(tmp_path / "db")

    [deployment] = engine.deploy_processes(path)

    assert deployment.messages == (("placed", "order-placed"),)
    assert engine.store.message_start("order-placed") == ("order", deployment.version, "placed")
    assert engine.store.message_start("payment") is None


def test_a_published_message_starts_the_deployed_process(tmp_path: Path, engines) -> None:
    path = bpmn_file(tmp_path / "order.bpmn", ORDER, process="order", extra=MESSAGES)
    engine = engines(tmp_path / "db")
    engine.deploy_processes(path)

    [instance] = engine.publish_message("order-placed", variables={"orderId": "A-1"})

    assert instance.variables == {"orderId": "A-1"}
    history = [(e.event, e.element) for e in instance.history()]
    assert history[:4] == [
        ("instance.started", "order"),
        ("element.activated", "placed"),
        ("message.received", "placed"),
        ("element.completed", "placed"),
    ]
    assert instance.run().state == "waiting"
    # the next message goes to the waiting subscription, not to a new instance
    [same] = engine.publish_message("payment", variables={"paid": True})
    assert same.id == instance.id
    assert same.run().state == "completed"
    assert completions(engine, instance.id) == {"placed": 1, "pay": 1, "e": 1}
    assert len(engine.instances()) == 1


def test_a_message_id_published_twice_starts_one_instance(tmp_path: Path, engines) -> None:
    path = bpmn_file(tmp_path / "order.bpmn", ORDER, process="order", extra=MESSAGES)
    engine = engines(tmp_path / "db")
    engine.deploy_processes(path)

    assert len(engine.publish_message("order-placed", message_id="m-1")) == 1
    assert engine.publish_message("order-placed", message_id="m-1") == []
    assert len(engine.instances()) == 1


def test_without_a_deployment_the_message_is_buffered_as_before(tmp_path: Path, engines) -> None:
    engine = engines(tmp_path / "db")
    assert engine.start_by_message("order-placed") is None
    assert engine.publish_message("order-placed", ttl=60) == []
    assert engine.instances() == []


def test_a_worker_runs_what_a_message_started(tmp_path: Path, engines) -> None:
    from bpmn_engine.runtime.worker.worker import Worker

    body = (
        '<startEvent id="placed"><messageEventDefinition messageRef="M_order"/></startEvent>'
        f'{flow("placed", "work")}<serviceTask id="work"/>{flow("work", "e")}<endEvent id="e"/>'
    )
    path = bpmn_file(tmp_path / "order.bpmn", body, process="order", extra=MESSAGES)
    calls: list[str] = []
    engine = engines(tmp_path / "db", handlers={"work": lambda ctx: calls.append(ctx.element_id)})
    engine.deploy_processes(path)
    [instance] = engine.publish_message("order-placed")

    report = Worker(engine, once=True).run()

    assert (report.steps, report.instances) == (2, {instance.id})
    assert calls == ["work"]
    assert engine.instance(instance.id).state == "completed"


ALARM = (
    '<startEvent id="rang"><signalEventDefinition signalRef="S_alarm"/></startEvent>'
    f'{flow("rang", "e")}<endEvent id="e"/>'
)
SIGNALS = '<signal id="S_alarm" name="fire-alarm"/>'


def test_a_signal_starts_every_deployed_process_with_that_signal_start(
    tmp_path: Path, engines
) -> None:
    engine = engines(tmp_path / "db")
    for process in ("evacuate", "notify"):
        path = bpmn_file(tmp_path / f"{process}.bpmn", ALARM, process=process, extra=SIGNALS)
        [deployment] = engine.deploy_processes(path)
        assert deployment.signals == (("rang", "fire-alarm"),)
    woken = engine.broadcast_signal("fire-alarm", {"floor": 3})
    assert sorted(i.process_id for i in woken) == ["evacuate", "notify"]
    for instance in woken:
        assert instance.run().state == "completed"
        assert instance.variables == {"floor": 3}
    assert engine.broadcast_signal("no-such-signal") == []
