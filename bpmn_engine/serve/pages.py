"""The cockpit: HTML pages over the same operations as the JSON API (instances, one instance
drawn with its tokens, the task list with forms, incidents with retry).

Pages are made on the server, every diagram text escaped; one small script of our own
(`/static/cockpit.js`, no other asset, nothing from the network) refreshes the page's main
part in place while nobody is typing. Forms post to `/ui/...` with a token only these pages
carry (another site cannot read it), then come back to the page they were sent from.
"""

from __future__ import annotations

import html
import json
from typing import Any
from urllib.parse import quote, urlencode

from lxml import etree

from bpmn_engine import Engine, Instance, OpenTask
from bpmn_engine.diagram import instance_svg
from bpmn_engine.serve.api import ApiError, Settings, engine

MAX_ROWS = 200  # instances a page lists (it is refreshed every two seconds)
PAGE_CSP = (
    "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; connect-src 'self'; "
    "img-src 'self' data:; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
STYLE = """
body { font-family: Arial, Helvetica, sans-serif; margin: 0; color: #22242a; }
nav { background: #263238; padding: 0.6em 1.5em; }
nav a { color: #eceff1; margin-right: 1.2em; text-decoration: none; }
main { margin: 1.2em 1.5em; }
h1 { font-size: 1.3em; } h2 { font-size: 1.05em; margin-top: 1.5em; }
.diagram svg { max-width: 100%; height: auto; border: 1px solid #ddd; }
table { border-collapse: collapse; font-size: 0.9em; }
td, th { border-bottom: 1px solid #eee; padding: 0.25em 0.8em 0.25em 0; text-align: left;
  vertical-align: top; }
.state-failed, .error { color: #c62828; } .state-completed { color: #2e7d32; }
.state-waiting { color: #ef6c00; }
form.inline, label.inline { display: inline; }
fieldset { border: 1px solid #ddd; margin: 0.6em 0; }
label { display: block; margin: 0.3em 0; }
code, pre { font-size: 0.9em; }
"""
SCRIPT = """// refreshes <main> in place every two seconds while nothing in it is being edited
(function () {
  var main = document.getElementById('main');
  if (!main || !main.dataset.poll) { return; }
  var edited = false;
  main.addEventListener('input', function () { edited = true; });
  setInterval(function () {
    var focused = document.activeElement;
    if (edited || (focused && main.contains(focused) && focused.tagName !== 'BODY')) { return; }
    fetch(location.href, {headers: {'X-Cockpit-Poll': '1'}, credentials: 'same-origin'})
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (text) {
        if (text === null) { return; }
        var next = new DOMParser().parseFromString(text, 'text/html').getElementById('main');
        if (next && next.innerHTML !== main.innerHTML && !edited) {
          main.innerHTML = next.innerHTML;
        }
      })
      .catch(function () {});
  }, 2000);
})();
"""


def e(text: object) -> str:
    """Text from a diagram, a variable or a request, as HTML text or attribute value."""
    return html.escape(str(text), quote=True)


def layout(title: str, body: str, *, poll: bool = True) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        f"<title>{e(title)} · bpmn-engine</title><style>{STYLE}</style>"
        '<script src="/static/cockpit.js" defer></script></head><body>'
        '<nav><a href="/">Instances</a><a href="/tasks">Tasks</a>'
        '<a href="/incidents">Incidents</a><a href="/simulate">Simulate</a>'
        '<a href="/openapi.json">API</a></nav>'
        f'<main id="main"{" data-poll=1" if poll else ""}><h1>{e(title)}</h1>{body}</main>'
        "</body></html>\n"
    )


def form(action: str, csrf: str, inner: str, button: str, *, inline: bool = False) -> str:
    css = ' class="inline"' if inline else ""
    return (
        f'<form method="post" action="{e(action)}"{css}>'
        f'<input type="hidden" name="csrf" value="{e(csrf)}">{inner}'
        f"<button>{e(button)}</button></form>"
    )


def _state(state: str) -> str:
    return f'<span class="state-{e(state)}">{e(state)}</span>'


def _link(instance_id: str) -> str:
    return f'<a href="/instances/{quote(instance_id, safe="")}">{e(instance_id)}</a>'


def _shown(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return repr(value)


# --- pages ------------------------------------------------------------------------------
def instances_page(settings: Settings, query: dict[str, str]) -> str:
    state, process = query.get("state") or None, query.get("process") or None
    incident = query.get("incident") == "1"
    with engine(settings) as opened:
        rows = opened.instances(state=state, process=process)
    if incident:  # those with an open incident, failed or with other tokens waiting
        rows = [row for row in rows if row.get("incident")]
    choices = "".join(
        f'<option value="{s}"{" selected" if s == state else ""}>{s or "any state"}</option>'
        for s in ("", "active", "waiting", "failed", "completed", "terminated")
    )
    body = [
        '<form method="get" action="/">'
        f'<select name="state">{choices}</select> '
        f'<input name="process" placeholder="process id" value="{e(process or "")}"> '
        f'<label class="inline"><input type="checkbox" name="incident" value="1"'
        f"{' checked' if incident else ''}> with an incident</label> "
        "<button>Filter</button></form>",
        "<table><tr><th>instance</th><th>process</th><th>business key</th><th>state</th>"
        "<th>incident</th></tr>",
    ]
    shown = list(reversed(rows))[:MAX_ROWS]  # the newest first
    for row in shown:
        body.append(
            f"<tr><td>{_link(row['id'])}</td><td>{e(row['process'])}</td>"
            f"<td>{e(row.get('business_key') or '')}</td><td>{_state(row['state'])}</td>"
            f'<td class="error">{e(row.get("incident") or "")}</td></tr>'
        )
    body.append("</table>")
    if len(rows) > len(shown):
        more = len(rows) - len(shown)
        body.append(f"<p>{more} older instance{'s' if more > 1 else ''} not shown: filter.</p>")
    if not rows:
        body.append("<p>No instances yet: deploy and start one (docs/api.md).</p>")
    return layout("Instances", "".join(body))


def _task_form(task: OpenTask, csrf: str, back: str = "/tasks") -> str:
    fields = []
    for field in task.form_fields:
        label = e(field.label or field.id)
        name = f"var.{field.id}"
        kind = (field.type or "string").lower()
        if kind == "boolean":
            checked = " checked" if (field.default or "").lower() == "true" else ""
            control = f'<input type="checkbox" name="{e(name)}" value="true"{checked}>'
        elif kind == "enum" and field.values:
            options = "".join(
                f'<option value="{e(v)}"{" selected" if v == field.default else ""}>{e(v)}</option>'
                for v in field.values
            )
            control = f'<select name="{e(name)}">{options}</select>'
        else:
            number = kind in ("long", "number", "integer", "double")
            control = (
                f'<input name="{e(name)}" type="{"number" if number else "text"}"'
                f"{' step=any' if kind in ('number', 'double') else ''}"
                f' value="{e(field.default or "")}">'
            )
        fields.append(
            f'<label>{label} {control}<input type="hidden" name="type.{e(field.id)}" '
            f'value="{e(kind)}"></label>'
        )
    if not task.form_fields:
        fields.append(
            '<label>variables (JSON object, optional) <input name="json" size="40"></label>'
        )
    action = (
        f"/ui/instances/{quote(task.instance, safe='')}/tasks/{task.task}/complete"
        f"?{urlencode({'back': back})}"
    )
    title = task.name or task.element
    inner = f"<fieldset><legend>{e(title)}</legend>{''.join(fields)}"
    return form(action, csrf, inner, "Complete") + "</fieldset>"


def _table(head: tuple[str, ...], rows: list[str], empty: str) -> str:
    """A table of already escaped rows, or `empty` when there is none."""
    if not rows:
        return f"<p>{e(empty)}</p>"
    heads = "".join(f"<th>{e(h)}</th>" for h in head)
    return f"<table><tr>{heads}</tr>{''.join(rows)}</table>"


def tasks_page(settings: Settings, csrf: str) -> str:
    with engine(settings) as opened:
        found = opened.tasks()
    rows = [
        f"<tr><td>{e(task.name or task.element)}</td><td>{_link(task.instance)}</td>"
        f"<td>{e(task.process)}</td><td>{e(task.assignee or '')}</td>"
        f"<td>{e(', '.join((*task.candidate_groups, *task.candidate_users)))}</td>"
        f"<td>{_task_form(task, csrf)}</td></tr>"
        for task in found
    ]
    head = ("task", "instance", "process", "assignee", "candidates", "complete")
    return layout("Tasks", _table(head, rows, "No open user tasks."))


def incidents_page(settings: Settings, csrf: str) -> str:
    with engine(settings) as opened:
        found = opened.incidents()
    rows = []
    for incident in found:
        at = f"/ui/instances/{quote(incident.id, safe='')}/retry?back=/incidents"
        rows.append(
            f"<tr><td>{e(incident.id)}</td><td>{_link(incident.instance)}</td>"
            f"<td>{e(incident.element)}</td><td class=error>{e(incident.message)}</td>"
            f"<td>{form(at, csrf, '', 'Retry', inline=True)}</td></tr>"
        )
    head = ("incident", "instance", "element", "message", "")
    return layout("Incidents", _table(head, rows, "No open incidents."))


def _tree(opened: Engine, instance: Instance) -> str:
    members = opened.tree(instance).members()
    if len(members) < 2 and instance.parent is None:
        return ""
    rows = [
        f"<li>{_link(m.id)} {e(m.process_id)} {_state(m.outcome().state)}</li>" for m in members
    ]
    parent = f"<p>called by {_link(instance.parent)}</p>" if instance.parent else ""
    return f"<h2>Call tree</h2>{parent}<ul>{''.join(rows)}</ul>"


def instance_page(settings: Settings, instance_id: str, csrf: str) -> str:
    with engine(settings) as opened:
        instance = opened.instance(instance_id)
        outcome = instance.outcome()
        svg = etree.tostring(instance_svg(instance), encoding="unicode")
        tasks = [t for t in opened.tasks() if t.instance == instance.id]
        tree = _tree(opened, instance)
        incidents = opened.incidents(instance.id)
        history = instance.history()
        process, business_key = instance.process_id, instance.business_key
    here = f"/instances/{quote(instance.id, safe='')}"
    body = [
        f"<p>process <b>{e(process)}</b>"
        + (f", business key <b>{e(business_key)}</b>" if business_key else "")
        + f": {_state(outcome.state)}"
        + (f", ended at {e(outcome.end_event)}" if outcome.end_event else "")
        + "</p>"
    ]
    if outcome.incident:
        body.append(f'<p class="error">incident: {e(outcome.incident)}</p>')
    for incident in incidents:
        body.append(
            form(
                f"/ui/instances/{quote(incident.id, safe='')}/retry?{urlencode({'back': here})}",
                csrf,
                "",
                f"Retry {incident.element}",
                inline=True,
            )
        )
    body.append(f'<div class="diagram">{svg}</div>')
    if outcome.waiting_for:
        elements = dict.fromkeys(str(w.get("element", "")) for w in outcome.waiting_for)
        waits = ", ".join(e(element) for element in elements)  # a join waits once per branch
        body.append(f"<p>waiting at: {waits}</p>")
    body += [
        _task_form(task, csrf).replace("back=%2Ftasks", f"back={quote(here)}") for task in tasks
    ]
    if outcome.state not in ("completed", "terminated") and instance.parent is None:
        cancel_at = f"/ui/instances/{quote(instance.id, safe='')}/cancel?back={quote(here)}"
        body.append(form(cancel_at, csrf, "", "Cancel the instance", inline=True))
    body.append(tree)
    body.append("<h2>Variables</h2><table><tr><th>name</th><th>value</th></tr>")
    for name, value in sorted(outcome.variables.items()):
        body.append(
            f"<tr><td><code>{e(name)}</code></td><td><code>{e(_shown(value))}</code></td></tr>"
        )
    body.append("</table><h2>History</h2><table><tr><th>#</th><th>event</th><th>element</th></tr>")
    for event in history:
        element = e(event.element or "")
        body.append(f"<tr><td>{event.seq}</td><td>{e(event.event)}</td><td>{element}</td></tr>")
    body.append("</table>")
    return layout(f"Instance {instance.id}", "".join(body))


# --- what a form posts ------------------------------------------------------------------
def form_variables(fields: dict[str, str]) -> dict[str, Any]:
    """The variables a task form gives: `var.NAME` by its field's `type.NAME`, or a JSON
    object in `json`; an unticked checkbox is false."""
    found: dict[str, Any] = {}
    raw = fields.get("json", "").strip()
    if raw:
        try:
            parsed = json.loads(raw)
        except ValueError as error:
            raise ApiError(400, f"the variables are not JSON: {error}") from None
        if not isinstance(parsed, dict):
            raise ApiError(400, "the variables must be a JSON object")
        found.update(parsed)
    for key, kind in fields.items():
        if not key.startswith("type."):
            continue
        name = key[len("type.") :]
        value = fields.get(f"var.{name}")
        if kind == "boolean":
            found[name] = value == "true"
        elif value is None or value == "":
            continue
        elif kind in ("long", "integer"):
            try:
                found[name] = int(value)
            except ValueError:
                raise ApiError(400, f"{name!r} must be a whole number") from None
        elif kind in ("number", "double"):
            try:
                found[name] = float(value)
            except ValueError:
                raise ApiError(400, f"{name!r} must be a number") from None
        else:
            found[name] = value
    return found


def error_page(status: int, message: str) -> str:
    return layout(f"Error {status}", f'<p class="error">{e(message)}</p>', poll=False)
