"""bpmnlint's 27 rules, with bpmnlint's ids and default levels: one module per rule.

Module names are the rule ids with `_` (`global_` for `global`, a Python keyword); each module
has a `RULE`. The rules read the XML tree (`Document.root`) through `_bpmn`, as bpmnlint reads
the whole moddle tree: lanes, participants, artifacts and diagram interchange included.
"""

from __future__ import annotations

from bpmn_engine.validate.findings import Rule
from bpmn_engine.validate.rules import (
    ad_hoc_sub_process,
    conditional_event,
    conditional_flows,
    end_event_required,
    event_based_gateway,
    event_sub_process_typed_start_event,
    fake_join,
    global_,
    label_required,
    link_event,
    no_bpmndi,
    no_complex_gateway,
    no_disconnected,
    no_duplicate_sequence_flows,
    no_gateway_join_fork,
    no_implicit_end,
    no_implicit_split,
    no_implicit_start,
    no_inclusive_gateway,
    no_overlapping_elements,
    single_blank_start_event,
    single_event_definition,
    standard_size,
    start_event_required,
    sub_process_blank_start_event,
    superfluous_gateway,
    superfluous_termination,
)

RULES: list[Rule] = [
    ad_hoc_sub_process.RULE,
    conditional_event.RULE,
    conditional_flows.RULE,
    end_event_required.RULE,
    event_based_gateway.RULE,
    event_sub_process_typed_start_event.RULE,
    fake_join.RULE,
    global_.RULE,
    label_required.RULE,
    link_event.RULE,
    no_bpmndi.RULE,
    no_complex_gateway.RULE,
    no_disconnected.RULE,
    no_duplicate_sequence_flows.RULE,
    no_gateway_join_fork.RULE,
    no_implicit_end.RULE,
    no_implicit_split.RULE,
    no_implicit_start.RULE,
    no_inclusive_gateway.RULE,
    no_overlapping_elements.RULE,
    single_blank_start_event.RULE,
    single_event_definition.RULE,
    standard_size.RULE,
    start_event_required.RULE,
    sub_process_blank_start_event.RULE,
    superfluous_gateway.RULE,
    superfluous_termination.RULE,
]
