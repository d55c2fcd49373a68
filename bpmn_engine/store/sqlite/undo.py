"""The undo log: the before-images of committed steps, so the last steps can be rewound.

Written only for an engine that asks for it (`Engine(undo=True)`, which `bpmn step` uses):
a step that records its before-images costs more, and a run has no use for them. Each row
is one committed step (one checkpoint under the `wait` policy) with the instance version
before and after it; rewinding checks that the rows are the instance's latest steps, chained
version to version, so a step taken without the log is never skipped over.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import Any

from bpmn_engine.errors import NotFound, UsageError
from bpmn_engine.records.data import Step, is_missing
from bpmn_engine.store.dialect import Sql
from bpmn_engine.store.sqlite.connection import (
    HEAD_FIELDS,
    TASK_PEOPLE,
    TRACK_FIELDS,
    SqliteConnection,
    dumps,
    names_text,
    write_variable,
)
from bpmn_engine.store.sqlite.data_stores import unwrite_stores

# table -> (columns written back, besides instance and id); each record is a row's image
ROWS = {
    "tracks": (*TRACK_FIELDS, "version"),
    "scopes": ("element", "parent", "track", "status", "version"),
    "user_tasks": ("track", "element", "name", "status", "inputs", *TASK_PEOPLE),
    "timers": ("track", "element", "host", "due", "repeat", "interval", "status"),
    "subscriptions": ("track", "element", "host", "kind", "name", "key", "status"),
}


def _image(row: Any) -> dict[str, Any] | None:
    if row is None:
        return None
    image = asdict(row)
    image.pop("id", None)
    if "status" in image:
        image["status"] = str(image["status"])
    if "inputs" in image:
        image["inputs"] = dumps(image["inputs"])
    for people in ("candidate_users", "candidate_groups"):
        if people in image:
            image[people] = names_text(image[people])
    return image


def undo_record(step: Step, outbox_ids: list[int], stores: list[list[Any]] | None = None) -> str:
    """Everything needed to put the rows back as they were before `step` (`stores`: the
    before-images of the data stores it wrote, from `write_stores`)."""
    head = step.head_before
    record = {
        "head": {
            **{
                name: str(getattr(head, name)) if name == "state" else getattr(head, name)
                for name in HEAD_FIELDS
            },
            "definition": head.definition,  # a migration changes it
        },
        "tracks": {str(k): _image(v) for k, v in step.tracks.items()},
        "scopes": {str(k): _image(v) for k, v in step.scopes.items()},
        "user_tasks": {str(k): _image(v) for k, v in step.tasks.items()},
        "timers": {str(k): _image(v) for k, v in step.timers.items()},
        "subscriptions": {str(k): _image(v) for k, v in step.subscriptions.items()},
        "values": [
            [scope, name, None if is_missing(old) else old, is_missing(old)]
            for (scope, name), old in step.values.items()
        ],
        "joins": [[j.scope, j.gateway, j.activation] for j in step.joins],
        "events": [e.seq for e in step.events],
        "outbox": outbox_ids,
        "deliveries": [list(d) for d in step.deliveries],
        "correlated": [m[0] for m in step.correlated],
        "claimed": list(step.claimed_messages),
        "stores": stores or [],
    }
    return dumps(record)


class UndoRows(SqliteConnection):
    """Recording steps' before-images, and applying them in reverse."""

    def undoable_steps(self, instance_id: str) -> int:
        """How many of the instance's latest steps can be rewound (an unbroken chain)."""
        return len(self._chain(self.conn, instance_id, None))

    def rewind(self, instance_id: str, steps: int) -> None:
        """Put the instance's rows back as they were before its last `steps` steps, in one
        transaction, or change nothing and say why."""
        self.rewind_together([(instance_id, steps)])

    def rewind_together(self, rewinds: list[tuple[str, int]]) -> None:
        """Rewind several instances (a parent and the children its steps talked to), in this
        order and in one transaction, or change nothing and say why. A receiver goes first:
        its receipt gone, the sender's row is withdrawn when the sender goes back. A reply
        between a parent and a child whose receipt goes back while its sender's step stays is
        refused: the row, delivered, would never be delivered again."""
        with self.transaction() as conn:
            loose: dict[int, str] = {}  # parent/child rows whose receipt went back
            for instance_id, steps in rewinds:
                self._rewind(conn, instance_id, steps, loose)
            for outbox_id, receiver in loose.items():
                row = conn.execute(
                    "SELECT kind, source FROM outbox WHERE id = ?", (outbox_id,)
                ).fetchone()
                if row is not None:
                    raise UsageError(
                        f"instance {receiver} cannot go back past the step that received "
                        f"the {row[0]} of instance {row[1]} alone: that {row[0]} would never "
                        f"come again; go back in instance {row[1]} too (step it from its root)"
                    )

    def _rewind(self, conn: Sql, instance_id: str, steps: int, loose: dict[int, str]) -> None:
        chain = self._chain(conn, instance_id, steps)
        if steps < 1 or len(chain) < steps:
            raise UsageError(
                f"instance {instance_id}: can go back at most {len(chain)} steps"
                + ("" if chain else " (only steps taken by `bpmn step` are recorded)")
            )
        (current,) = conn.execute(
            "SELECT version FROM instances WHERE id = ?", (instance_id,)
        ).fetchone()
        for row_id, _, record in chain:
            self._undo(conn, instance_id, json.loads(record), loose)
            conn.execute("DELETE FROM undo WHERE id = ?", (row_id,))
        head = json.loads(chain[-1][2])["head"]
        version = current + 1  # a copy loaded before the rewind can no longer commit
        names = [name for name in (*HEAD_FIELDS, "definition") if name in head]  # older: fewer
        conn.execute(
            "UPDATE instances SET "
            + ", ".join(f"{name} = ?" for name in names)
            + ", version = ? WHERE id = ?",
            (*(head[name] for name in names), version, instance_id),
        )
        conn.execute(  # the step now latest continues the chain at the new version
            "UPDATE undo SET version_after = ? WHERE instance = ? AND version_after = ?",
            (version, instance_id, chain[-1][1]),
        )

    def _chain(self, conn: Sql, instance_id: str, limit: int | None) -> list[tuple[int, int, str]]:
        """(row, version before, record) of the latest steps, newest first, while unbroken."""
        row = conn.execute("SELECT version FROM instances WHERE id = ?", (instance_id,)).fetchone()
        if row is None:
            raise NotFound(f"no instance {instance_id!r} in {self.path}")
        expected, chain = row[0], []
        for row_id, before, after, record in conn.execute(
            "SELECT id, version_before, version_after, record FROM undo WHERE instance = ? "
            "ORDER BY version_after DESC",
            (instance_id,),
        ):
            if after != expected or (limit is not None and len(chain) >= limit):
                break
            chain.append((row_id, before, record))
            expected = before
        return chain

    def _undo(
        self,
        conn: Sql,
        instance: str,
        record: dict[str, Any],
        loose: dict[int, str],
    ) -> None:
        for outbox_id in record["outbox"]:  # withdrawn, unless someone received it
            message = f"outbox-{outbox_id}"
            receivers = {  # "instance/subscription", or "start/process/element"
                r[0].partition("/")[0] if not r[0].startswith("start/") else r[0]
                for r in conn.execute(
                    "SELECT receiver FROM outbox_deliveries WHERE outbox = ?", (outbox_id,)
                )
            }
            receivers.update(
                r[0]
                for r in conn.execute(
                    "SELECT instance FROM messages WHERE id = ? AND status = 'correlated'",
                    (message,),
                )
            )
            kind = conn.execute("SELECT kind FROM outbox WHERE id = ?", (outbox_id,)).fetchone()
            if receivers and kind is not None and kind[0] == "call":
                raise UsageError(
                    f"cannot go back past the step that called instance "
                    f"{', '.join(sorted(receivers))}: a called instance is not un-started "
                    "(its opening step is not in the undo log)"
                )
            if receivers:
                raise UsageError(
                    "cannot go back past a step that sent a message or signal instance "
                    f"{', '.join(sorted(receivers))} already received: going back would "
                    "leave it with something that was never sent"
                )
            conn.execute("DELETE FROM messages WHERE id = ?", (message,))  # buffered: withdrawn
            conn.execute("DELETE FROM outbox WHERE id = ?", (outbox_id,))
        # a store someone wrote since refuses the rewind (one transaction: nothing changes)
        unwrite_stores(conn, instance, record.get("stores", []))
        for table, columns in ROWS.items():
            for key, image in record[table].items():
                conn.execute(  # the row as the step left it goes, whole (its claim too)
                    f"DELETE FROM {table} WHERE instance = ? AND id = ?", (instance, int(key))
                )
                if image is not None:  # and the row as it was comes back
                    conn.execute(
                        f"INSERT INTO {table} (instance, id, {', '.join(columns)}) "
                        f"VALUES (?, ?{', ?' * len(columns)})",
                        # .get: a record written before a column was added lacks it
                        (instance, int(key), *(image.get(c) for c in columns)),
                    )
        for scope, name, value, missing in record["values"]:
            write_variable(conn, instance, scope, name, value, missing)
        for scope, gateway, activation in record["joins"]:
            conn.execute(
                "DELETE FROM joins WHERE instance = ? AND scope = ? AND gateway = ? "
                "AND activation = ?",
                (instance, scope, gateway, activation),
            )
        conn.executemany(
            "DELETE FROM history WHERE instance = ? AND seq = ?",
            [(instance, seq) for seq in record["events"]],
        )
        for outbox_id, _receiver in record["deliveries"]:
            kind = conn.execute("SELECT kind FROM outbox WHERE id = ?", (outbox_id,)).fetchone()
            if kind is not None and kind[0] not in ("message", "signal"):
                loose[outbox_id] = instance  # a parent/child row: its sender must go back too
        conn.executemany(
            "DELETE FROM outbox_deliveries WHERE outbox = ? AND receiver = ?",
            [tuple(d) for d in record["deliveries"]],
        )
        conn.executemany(  # a message this step took is published no more
            "DELETE FROM messages WHERE id = ?", [(m,) for m in record["correlated"]]
        )
        conn.executemany(  # a buffered message this step took waits again
            "UPDATE messages SET status = 'buffered', instance = NULL WHERE id = ?",
            [(m,) for m in record["claimed"]],
        )
