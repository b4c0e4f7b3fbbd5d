"""A simulated node sends an unanswered report again while it stays connected (real mosquitto, fake clock)."""

from __future__ import annotations

from companion.clock import FakeClock
from companion.core import protocol
from companion.node.sim import SimNode
from tests.conftest import wait_until
from tests.firmware.conftest import Recorder


def test_unanswered_flip_goes_again_on_the_same_connection(mosquitto, table_id):
    rec = Recorder(mosquitto, protocol.table_prefix(table_id) + "/node/red-1/event")
    clock = FakeClock()
    node = SimNode(table_id, "red-1", mosquitto.address, clock, heartbeat_s=600, resend_s=2.0).start()
    try:
        assert node.connected.wait(5)
        node.flip()
        assert [e["seq"] for e in rec.wait_for(1, kind="flip")] == [1]
        clock.advance(1.9)
        node.poll()
        assert node.core.resent == 0, "the hub gets its first wait to answer"
        clock.advance(0.1)
        node.poll()
        assert [e["seq"] for e in rec.wait_for(2, kind="flip")] == [1, 1] and node.core.resent == 1
        cmd = protocol.node_topic(table_id, "red-1", "cmd")
        retry = protocol.encode("cmd", "ack", boot=node.core.boot_id, seq=1, verdict="retry", reason="later")
        rec.publish(cmd, retry)
        wait_until(lambda: node.core.retry_reason == "later", message="the retry answer")
        clock.advance(3.9)
        node.poll()
        assert node.core.resent == 1 and node.core.outbox, "kept; the second wait is twice the first"
        clock.advance(0.1)
        node.poll()
        assert len(rec.wait_for(3, kind="flip")) == 3
        accepted = protocol.encode("cmd", "ack", boot=node.core.boot_id, seq=1, verdict="accepted")
        rec.publish(cmd, accepted)
        wait_until(lambda: not node.core.outbox, message="the accepted ack")
        clock.advance(120)
        node.poll()
        assert node.core.resent == 2 and node.connected.is_set()
    finally:
        node.stop()
        rec.close()
