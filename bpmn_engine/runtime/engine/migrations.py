"""Migrating running instances to another version of their definitions (`Engine.migrate`,
`bpmn migrate`): every plan is checked before any instance moves (`instance/migrate.py`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from bpmn_engine.errors import UsageError
from bpmn_engine.model import Definitions
from bpmn_engine.parse import load_file
from bpmn_engine.records.lifecycle import InstanceState
from bpmn_engine.runtime.engine.definitions import DefinitionsPart
from bpmn_engine.runtime.engine.instances import InstancesPart
from bpmn_engine.runtime.instance.migrate import MigrationPlan
from bpmn_engine.runtime.instance.parts import Listener

_RUNNING = (InstanceState.ACTIVE, InstanceState.FAILED)


class MigrationsPart(InstancesPart, DefinitionsPart):
    """Instances onto a new version, all checked first."""

    def running_instances(self, process: str) -> list[str]:
        """The instances of `process` that have not ended (what `--all` migrates)."""
        rows = self.store.list_instances()
        return [r["id"] for r in rows if r["process"] == process and r["state"] in _RUNNING]

    def migrate(
        self,
        instance_ids: Sequence[str],
        to: Definitions | str | Path,
        mapping: Mapping[str, str] | None = None,
        *,
        dry_run: bool = False,
        on_event: Listener | None = None,
    ) -> list[MigrationPlan]:
        """Move each instance onto the definitions `to` (a file, or compiled ones), its
        elements found by id or through `mapping` (old id -> new id). Every plan is checked
        first: one problem anywhere refuses them all (a UsageError naming each), and
        nothing changes. `dry_run`: the plans, nothing written (not even the new version)."""
        if not instance_ids:
            raise UsageError("no instance to migrate")
        target = to if isinstance(to, Definitions) else load_file(to)
        instances = [self.instance(i) for i in instance_ids]
        plans = [instance.migration_plan(target, mapping) for instance in instances]
        if dry_run:
            return plans
        problems = [f"{p.instance}: {problem}" for p in plans for problem in p.problems]
        if problems:
            raise UsageError("nothing migrated: " + "; ".join(problems))
        for process in {instance.process_id for instance in instances}:
            self.check_process(target, target.processes[process])  # it must run there
        self.deploy(target)
        for instance in instances:
            instance.migrate(target, mapping, on_event=on_event)
        return plans
